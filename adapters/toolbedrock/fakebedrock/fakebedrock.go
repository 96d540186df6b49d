// Package fakebedrock points the AWS SDK's Bedrock runtime client at a
// scripted model of package fakemodel, which plays Converse and
// ConverseStream (its stream in the AWS event-stream framing), so that a
// run of toolbedrock is tested offline with the same script as every
// other provider's:
//
//	s := fakemodel.New(t, fakemodel.Call("get_weather", `{"city":"Paris"}`), fakemodel.Text("Sunny."))
//	run, err := toolbedrock.New(reg).Run(ctx, fakebedrock.Client(s), input, nil, agent.Options{})
package fakebedrock

import (
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// Client is a Bedrock runtime client of s: region us-east-1, placeholder
// static credentials (its requests are signed, and the signature is not
// recorded), and no retries, so that an error turn reaches the code under
// test at once. opts change its options further, as
// bedrockruntime.NewFromConfig's do (o.Retryer to test retrying).
func Client(s *fakemodel.Server, opts ...func(*bedrockruntime.Options)) *bedrockruntime.Client {
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("fakemodel", "fakemodel", ""),
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
		HTTPClient:  &http.Client{Transport: readOnlyBodies{awshttp.NewBuildableClient().GetTransport()}},
	}
	return bedrockruntime.NewFromConfig(cfg, append([]func(*bedrockruntime.Options){func(o *bedrockruntime.Options) {
		o.BaseEndpoint = aws.String(s.URL())
	}}, opts...)...)
}

// readOnlyBodies hides every request body's WriteTo from the transport.
// The SDK closes a request's body as soon as the response begins, and its
// body's WriteTo then returns io.EOF, which the transport, still draining
// the body it has sent whole, takes for a write error: it closes the
// connection under the streamed response. A server that answers the
// instant it has read the request, as a fake one does, meets that race;
// with Read the drain sees a plain end of body.
type readOnlyBodies struct{ http.RoundTripper }

func (t readOnlyBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r = r.Clone(r.Context())
		r.Body = struct{ io.ReadCloser }{r.Body}
	}
	return t.RoundTripper.RoundTrip(r)
}
