package fakemodel_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// replay is fakemodel.Replay on rec, in a goroutine of its own so that a
// Fatalf ends only it; nil when it did.
func replay(rec *recorder, file string, opts ...fakemodel.ReplayOption) *fakemodel.Server {
	var s *fakemodel.Server
	done := make(chan struct{})
	go func() {
		defer close(done)
		s = fakemodel.Replay(logger{rec}, file, opts...)
	}()
	<-done
	return s
}

// logger is a recorder that drops what is logged.
type logger struct{ *recorder }

func (logger) Logf(string, ...any) {}

const fixture = "testdata/weather_chat_stream.json"

// TestReplayBadFile: a recording that cannot be played stops the test at
// Replay, naming the file and, past its syntax, the exchange.
func TestReplayBadFile(t *testing.T) {
	const ok = `{"request":{"method":"POST","path":"/v1/chat/completions","body":{}},"response":{"status":200,"body":{}}}`
	tests := []struct {
		name, file string
		want       []string
	}{
		{"missing", "", []string{"no such file", "record it with TOOLREG_RECORD=1"}},
		{"not JSON", "{\n  \"exchanges\": [\n    {\"request\": }\n  ]\n}", []string{"is not a recording: line 3: invalid character '}'"}},
		{"not an object", `[1, 2]`, []string{"is not a recording", "cannot unmarshal array"}},
		{"no exchanges", `{"exchanges": []}`, []string{"it has no exchanges"}},
		{"unknown field", `{"exchanges": [` + ok + `, {"request":{"method":"POST","path":"/v1/x"},"response":{"sttus":200}}]}`, []string{"exchange 2", `unknown field "sttus"`}},
		{"bad status", `{"exchanges": [` + ok + `, ` + strings.Replace(ok, "200", "0", 1) + `]}`, []string{"exchange 2", "status 0 is not the status of an answer (200 to 599)"}},
		{"informational status", `{"exchanges": [` + strings.Replace(ok, "200", "101", 1) + `]}`, []string{"exchange 1", "status 101"}},
		{"header", `{"exchanges": [` + strings.Replace(ok, `"status":200`, `"status":200,"header":{"Content-Length":"999"}`, 1) + `]}`, []string{"exchange 1", `header "Content-Length" is not one a recording keeps (Content-Type, Retry-After`}},
		{"no method", `{"exchanges": [` + strings.Replace(ok, "POST", "", 1) + `]}`, []string{"exchange 1", "no method"}},
		{"relative path", `{"exchanges": [` + strings.Replace(ok, "/v1/", "v1/", 1) + `]}`, []string{"exchange 1", `path "v1/chat/completions"`}},
		{"body and events", `{"exchanges": [` + strings.Replace(ok, `"body":{}}}`, `"body":{},"events":[]}}`, 1) + `]}`, []string{"exchange 1", "more than one of body, events and text"}},
		{"trailing", `{"exchanges": [` + ok + `]} {}`, []string{"more after the JSON value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "x.json")
			if tt.file != "" {
				if err := os.WriteFile(file, []byte(tt.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rec := &recorder{}
			if s := replay(rec, file); s != nil {
				t.Fatal("Replay went on with a bad file")
			}
			errs := strings.Join(rec.end(), "\n")
			for _, want := range append(tt.want, file) {
				if !strings.Contains(errs, want) {
					t.Errorf("the failure does not say %q:\n%s", want, errs)
				}
			}
		})
	}
}

// TestReplayDiffers: a request that differs from the recorded one fails
// the test with a diff of the bodies, and the client gets a 500 at once,
// not a hang; IgnoreFields and CompareBodies let fields that vary differ.
func TestReplayDiffers(t *testing.T) {
	rec := &recorder{}
	s := replay(rec, fixture)
	start := time.Now()
	_, err := weatherIn(s, openai.ChatModelGPT5_2, "Rome")
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("err = %v, want a 500", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the client waited %v", d)
	}
	errs := strings.Join(rec.end(), "\n")
	for _, want := range []string{"replay of " + fixture + ": request 1 (OpenAI Chat) differs from exchange 1 (-recorded +sent):",
		`-`, `"Weather in Paris?"`, `+`, `"Weather in Rome?"`} {
		if !strings.Contains(errs, want) {
			t.Errorf("the failure does not say %q:\n%s", want, errs)
		}
	}

	for name, opt := range map[string]fakemodel.ReplayOption{
		"IgnoreFields":  fakemodel.IgnoreFields("messages.0.content"),
		"CompareBodies": fakemodel.CompareBodies(cmpopts.IgnoreMapEntries(func(k string, v any) bool { return v == "Weather in Rome?" || v == "Weather in Paris?" })),
	} {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{}
			answer, err := weatherIn(replay(rec, fixture, opt), openai.ChatModelGPT5_2, "Rome")
			if errs := rec.end(); err != nil || len(errs) > 0 {
				t.Fatalf("%v %q", err, errs)
			}
			if answer != "It is 18°C in Paris." { // as recorded
				t.Errorf("answer %q", answer)
			}
		})
	}
}

// TestReplayRunsOut: a request after the last exchange fails the test
// naming the file and the request, and gets a 500; exchanges never asked
// for fail it at the end.
func TestReplayRunsOut(t *testing.T) {
	rec := &recorder{}
	s := replay(rec, fixture)
	if _, err := weatherIn(s, openai.ChatModelGPT5_2, "Paris"); err != nil {
		t.Fatal(err)
	}
	client := openai.NewClient(s.OpenAIOptions()...)
	_, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("more?")}})
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("err = %v", err)
	}
	want := "fakemodel: replay of " + fixture + ": request 3 (OpenAI Chat): the recording has no exchange left: its 2 exchanges were answered"
	if errs := rec.end(); len(errs) != 1 || errs[0] != want {
		t.Errorf("errors %q, want %q", errs, want)
	}

	rec = &recorder{}
	s = replay(rec, fixture)
	resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want = "1 of its 2 exchanges were never asked for (the client sent 1 requests)"
	if errs := strings.Join(rec.end(), "\n"); !strings.Contains(errs, "differs from exchange 1") || strings.Contains(errs, want) {
		t.Errorf("a failed test is not told of the exchanges left: %q", errs)
	}

	rec = &recorder{}
	s = replay(rec, fixture, fakemodel.IgnoreFields("*"))
	resp, err = http.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if errs := strings.Join(rec.end(), "\n"); !strings.Contains(errs, want) {
		t.Errorf("errors %q, want %q", errs, want)
	}
}

// TestRecordFailed: a recording of a test that failed is not written,
// nor one of a test that sent nothing; a Bedrock request has no address
// to go to unless it is given.
func TestRecordFailed(t *testing.T) {
	live := fakemodel.New(t, fakemodel.Call("get_weather", `{"city":"Paris"}`), fakemodel.Text("It is 18°C in Paris."))
	file := filepath.Join(t.TempDir(), "x.json")
	rec := &recorder{}
	s := replay(rec, file, recordFrom(live)...)
	if _, err := weatherIn(s, openai.ChatModelGPT5_2, "Paris"); err != nil {
		t.Fatal(err)
	}
	rec.Errorf("the test failed")
	rec.end()
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a failed test's recording was written: %v", err)
	}

	rec = &recorder{}
	replay(rec, file, fakemodel.Record())
	if errs := rec.end(); len(errs) != 1 || !strings.Contains(errs[0], "the test sent no request, so there is nothing to record") {
		t.Errorf("errors %q", errs)
	}

	rec = &recorder{}
	s = replay(rec, file, fakemodel.Record())
	resp, err := http.Post(s.URL()+"/model/m/converse", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(body), "ThrottlingException") && !strings.Contains(string(body), "InternalServerException") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	resp, err = http.Post(s.URL()+"/v1/messages", "application/json", strings.NewReader(`{"model":`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 {
		t.Errorf("a body that is not JSON: %d", resp.StatusCode)
	}
	errs := strings.Join(rec.end(), "\n")
	for _, want := range []string{`give one with Upstream("bedrock", url)`, "request 2 (Anthropic Messages): the body is not JSON"} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors %q, want %q", errs, want)
		}
	}
}

// TestRecordKeepsNoSecret records requests carrying a key in every place
// a key can be (each credential header, the query, a cookie, AWS's
// signature and token, a body) from a provider that echoes them back (in
// headers, a cookie and an error message): the file holds none, and the
// provider got them all.
func TestRecordKeepsNoSecret(t *testing.T) {
	const (
		bearer   = "sk-bearer-0123456789/abcdef"
		apiKey   = "sk-ant-x-api-key-0123456789"
		goog     = "AIzaGoogKey0123456789"
		azure    = "azure-api-key-0123456789"
		query    = "AIzaQueryKey+0123/456=="
		cookie   = "cookie-session-0123456789"
		amzTok   = "amz-security-token-0123456789"
		akid     = "AKIAEXAMPLE0123456789"
		sig      = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
		env      = "env-secret-value-0123456789"
		extra    = "extra-secret-0123456789"
		echoed   = "set-cookie-from-provider-0123456789"
		ordinary = "get_weather"
	)
	t.Setenv("TOOLREG_TEST_SERVICE_TOKEN", env)
	var got http.Header
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			got = r.Header.Clone()
			got.Set("Query", r.URL.RawQuery)
		}
		w.Header().Set("Set-Cookie", "session="+echoed)
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+bearer+`; also `+env+` and `+apiKey+`, see `+ordinary+`","type":"invalid_request_error"}}`)
	})
	live := httptest.NewServer(upstream)
	t.Cleanup(live.Close)
	file := filepath.Join(t.TempDir(), "secrets.json")
	t.Run("record", func(t *testing.T) {
		s := fakemodel.Replay(t, file, fakemodel.Record(), fakemodel.Upstream(fakemodel.OpenAI, live.URL), fakemodel.Upstream(fakemodel.Bedrock, live.URL),
			fakemodel.Secrets(extra))
		send := func(path string, header map[string]string, body string) {
			req, _ := http.NewRequest("POST", s.URL()+path, strings.NewReader(body))
			for k, v := range header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		send("/v1/chat/completions?key="+url.QueryEscape(query)+"&alt=sse", map[string]string{
			"Authorization": "Bearer " + bearer, "X-Api-Key": apiKey, "X-Goog-Api-Key": goog, "Api-Key": azure,
			"Cookie": "session=" + cookie, "Content-Type": "application/json",
		}, `{"model":"m","messages":[{"role":"user","content":"my token is `+env+` and `+extra+`"}]}`)
		send("/model/m/converse?X-Amz-Credential="+akid+"%2F20260101%2Fus-east-1", map[string]string{
			"Authorization":        "AWS4-HMAC-SHA256 Credential=" + akid + "/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + sig,
			"X-Amz-Security-Token": amzTok, "X-Amz-Date": "20260101T000000Z", "Content-Type": "application/json",
		}, `{"messages":[]}`)
	})
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{bearer, apiKey, goog, azure, query, url.QueryEscape(query), cookie, amzTok, akid, sig, env, extra, echoed} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the recording holds %q:\n%s", secret, data)
		}
	}
	for _, want := range []string{"REDACTED", `"query": "alt=sse"`, ordinary, `"status": 401`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the recording lacks %q:\n%s", want, data)
		}
	}
	for k, want := range map[string]string{"Authorization": "Bearer " + bearer, "X-Api-Key": apiKey, "Cookie": "session=" + cookie, "Query": "key=" + url.QueryEscape(query) + "&alt=sse"} {
		if got.Get(k) != want {
			t.Errorf("the provider got %s %q, want %q", k, got.Get(k), want)
		}
	}
}
