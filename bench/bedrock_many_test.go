package bench

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolbedrock"
	"github.com/toolreg/toolreg/agent"
)

// bedrockProvider runs Bedrock's Converse runner through the AWS SDK's
// client, signing with static credentials, against the scripted server.
// Bedrock has no tool search of its own: deferred tools are searched on
// the client.
func bedrockProvider() manyProvider {
	reply := func(content []any, stop string) string {
		return mustJSON(map[string]any{"output": map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
			"stopReason": stop, "usage": map[string]any{"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": map[string]any{"latencyMs": 1}})
	}
	return manyProvider{
		name: "Bedrock",
		call: func(name, args string) string {
			return reply([]any{map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_1", "name": name, "input": json.RawMessage(args)}}}, "tool_use")
		},
		answer: reply([]any{map[string]any{"text": "Done."}}, "end_turn"),
		run: func(ctx context.Context, url string, reg *toolreg.Registry, opts agent.Options) error {
			cfg := aws.Config{
				Region:      "us-east-1",
				Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
				Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
				HTTPClient:  &http.Client{Transport: readOnlyBodies{http.DefaultTransport}},
			}
			client := bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) { o.BaseEndpoint = aws.String(url) })
			in := &bedrockruntime.ConverseInput{ModelId: aws.String("anthropic.claude-sonnet-4-5"), Messages: []types.Message{{
				Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: manyPrompt}}}}}
			_, err := toolbedrock.New(reg).Run(ctx, client, in, nil, opts)
			return err
		},
	}
}

// readOnlyBodies hides each request body's WriteTo from the transport:
// the SDK closes the body once the response begins, and a WriteTo then
// fails, which the transport takes for a broken connection.
type readOnlyBodies struct{ http.RoundTripper }

func (t readOnlyBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r = r.Clone(r.Context())
		r.Body = struct{ io.ReadCloser }{r.Body}
	}
	return t.RoundTripper.RoundTrip(r)
}
