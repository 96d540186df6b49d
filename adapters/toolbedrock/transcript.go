package toolbedrock

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/schemas"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/aws/smithy-go/transport/http/protocol/restjson1"
)

// A run's State keeps the transcript as the JSON Converse itself reads:
// the "messages" of a request, written and read back by the SDK's own
// protocol code. encoding/json cannot do it: a content block is an
// interface of some twenty members, and documents and byte blobs need the
// protocol's encoding. The SDK offers no codec for messages alone, so the
// codec runs its request serializer on a request holding only the
// messages, and its response deserializer on such a body.

// codec is the SDK's JSON protocol, the one its client speaks.
var codec = restjson1.New(schemas.AmazonBedrockFrontendService)

// converseOp is the Converse operation, with its request shape on both
// sides: the transcript is read back as what it was written as.
var converseOp = smithy.NewOperationSchema(schemas.Converse, schemas.ConverseRequest, schemas.ConverseRequest)

// encodeMessages writes msgs as the JSON array of a Converse request's
// "messages".
func encodeMessages(msgs []types.Message) (json.RawMessage, error) {
	if msgs == nil {
		msgs = []types.Message{}
	}
	req := smithyhttp.NewStackRequest().(*smithyhttp.Request)
	// The model id only fills the request's path, which is not kept.
	in := &bedrockruntime.ConverseInput{ModelId: aws.String("transcript"), Messages: msgs}
	if err := codec.SerializeRequest(context.Background(), converseOp, in, req); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(req.GetStream())
	if err != nil {
		return nil, err
	}
	var wire struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return nil, err
	}
	return wire.Messages, nil
}

// decodeMessages reads what encodeMessages wrote.
func decodeMessages(raw json.RawMessage) ([]types.Message, error) {
	body, err := json.Marshal(struct {
		Messages json.RawMessage `json:"messages"`
	}{raw})
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	resp := &smithyhttp.Response{Response: &http.Response{
		StatusCode: http.StatusOK, Header: http.Header{},
		Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)),
	}}
	var out messagesBody
	if err := codec.DeserializeResponse(context.Background(), converseOp, bedrockruntime.TypeRegistry, resp, &out); err != nil {
		return nil, err
	}
	// The reader takes blocks the writer cannot write (an empty
	// reasoningContent: the SDK writes no value for an empty union):
	// refuse them here, not when the run saves its state.
	if _, err := encodeMessages(out.msgs); err != nil {
		return nil, fmt.Errorf("a block has no content: %w", err)
	}
	return out.msgs, nil
}

// messagesBody reads the messages of a Converse request body.
type messagesBody struct{ msgs []types.Message }

func (b *messagesBody) Deserialize(d smithy.ShapeDeserializer) error {
	return smithy.ReadStruct(d, schemas.ConverseRequest, func(s *smithy.Schema) error {
		if s != schemas.ConverseRequest_messages {
			return nil
		}
		b.msgs = []types.Message{}
		return smithy.ReadList(d, s, func() error {
			var m types.Message
			if err := m.Deserialize(d); err != nil {
				return err
			}
			b.msgs = append(b.msgs, m)
			return nil
		})
	})
}
