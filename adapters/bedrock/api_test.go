package bedrock

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fakeBedrock plays Bedrock's runtime API with the given replies: for
// Converse, response bodies.
func fakeBedrock(replies ...string) *adapttest.API {
	return &adapttest.API{Replies: replies, Error: func(msg string) string {
		b, _ := json.Marshal(map[string]string{"__type": "InternalServerException", "message": msg})
		return string(b)
	}}
}

// newClient is the SDK's real client, signing its requests with static
// credentials, against api. It makes no retries, so a test sees each
// failure once.
func newClient(t *testing.T, api *adapttest.API) *bedrockruntime.Client {
	srv := httptest.NewServer(front{api})
	t.Cleanup(srv.Close)
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}
	return bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) { o.BaseEndpoint = aws.String(srv.URL) })
}

// front passes each request to the API. The shared tests count a
// request's tools at its top level, where the other providers send them,
// so the front copies toolConfig.tools there as "tools"; the rest of the
// body is as the SDK sent it.
type front struct{ api *adapttest.API }

func (f front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) == nil && req["toolConfig"] != nil {
		var cfg struct {
			Tools json.RawMessage `json:"tools"`
		}
		json.Unmarshal(req["toolConfig"], &cfg)
		req["tools"] = cfg.Tools
		body, _ = json.Marshal(req)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	f.api.ServeHTTP(w, r)
}

// toolUses is a Converse response asking for calls, given as
// name/input pairs; ids are tooluse_1, tooluse_2, ...
func toolUses(pairs ...string) string {
	var content []any
	for i := 0; i < len(pairs); i += 2 {
		content = append(content, map[string]any{"toolUse": map[string]any{
			"toolUseId": fmt.Sprintf("tooluse_%d", i/2+1), "name": pairs[i], "input": json.RawMessage(pairs[i+1])}})
	}
	return response(content, "tool_use")
}

// answer is a Converse response with a final text.
func answer(text string) string {
	return response([]any{map[string]any{"text": text}}, "end_turn")
}

func response(content []any, stop string) string {
	b, err := json.Marshal(map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": stop,
		"usage":      map[string]any{"inputTokens": 12, "outputTokens": 7, "totalTokens": 19},
		"metrics":    map[string]any{"latencyMs": 100},
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// converseInput is the run's input: a model and one user message.
func converseInput() *bedrockruntime.ConverseInput {
	return &bedrockruntime.ConverseInput{ModelId: aws.String("anthropic.claude-test"), Messages: userMessage("plan my week")}
}

// requestMessages returns the "messages" of a request body, each as a
// map.
func requestMessages(t *testing.T, request map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	msgs, _ := request["messages"].([]any)
	for _, m := range msgs {
		out = append(out, m.(map[string]any))
	}
	return out
}
