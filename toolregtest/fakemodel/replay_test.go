package fakemodel_test

import (
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// recordFrom records from upstream, a scripted Server playing the live
// provider, for every provider.
func recordFrom(upstream *fakemodel.Server) []fakemodel.ReplayOption {
	opts := []fakemodel.ReplayOption{fakemodel.Record()}
	for _, p := range []fakemodel.Provider{fakemodel.OpenAI, fakemodel.Anthropic, fakemodel.Gemini, fakemodel.Vertex, fakemodel.Bedrock} {
		opts = append(opts, fakemodel.Upstream(p, upstream.URL()))
	}
	return opts
}

// TestRecordReplay records a run of every provider, streamed and not,
// through the real SDK client and the real runner, from a scripted
// Server playing the provider; then replays the file with no provider
// behind it, and the run, its calls and what the model was sent are the
// same.
func TestRecordReplay(t *testing.T) {
	each(t, func(t *testing.T, p provider, opts agent.Options) {
		file := filepath.Join(t.TempDir(), "testdata", "run.json")
		wantCalls := []fakemodel.Called{
			{Name: "get_weather", Args: `{"city":"Paris"}`, Result: "18°C in Paris"},
			{Name: "get_weather", Args: `{"city":"Atlantis"}`, Result: "no station in Atlantis", IsError: p.errors},
			{Name: "snapshot", Args: `{"city":"Paris"}`, Result: "the sky over Paris" + p.mediaNote},
		}
		check := func(t *testing.T, s *fakemodel.Server) []fakemodel.Request {
			answer, steps, err := p.run(timeout(t), s, registry(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if answer != "It is 18°C in Paris, under a clear sky." || steps != 2 {
				t.Errorf("answer %q, steps %d", answer, steps)
			}
			s.AssertCalls(wantCalls...)
			return s.Requests()
		}
		var recorded []fakemodel.Request
		t.Run("record", func(t *testing.T) {
			live := fakemodel.New(t,
				fakemodel.Turn{Text: "Let me check.", Calls: []fakemodel.ToolCall{
					{Name: "get_weather", Args: `{"city":"Paris"}`},
					{Name: "get_weather", Args: `{"city": "Atlantis"}`},
					{Name: "snapshot", Args: `{"city":"Paris"}`},
				}},
				fakemodel.Text("It is 18°C in Paris, under a clear sky."))
			recorded = check(t, fakemodel.Replay(t, file, recordFrom(live)...))
			if n := len(live.Requests()); n != 2 {
				t.Errorf("the provider got %d requests, not 2", n)
			}
		})
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("the recording was not written: %v", err)
		}
		t.Run("replay", func(t *testing.T) {
			replayed := check(t, fakemodel.Replay(t, file))
			if len(replayed) != len(recorded) {
				t.Fatalf("%d requests replayed, %d recorded", len(replayed), len(recorded))
			}
			for i := range replayed {
				if diff := cmp.Diff(recorded[i].ToolResults(), replayed[i].ToolResults()); diff != "" {
					t.Errorf("request %d: results (-recorded +replayed):\n%s", i+1, diff)
				}
				if diff := cmp.Diff(recorded[i].Media(), replayed[i].Media()); diff != "" {
					t.Errorf("request %d: media (-recorded +replayed):\n%s", i+1, diff)
				}
			}
		})
	})
}

// TestRecordingReads: a recorded stream is kept as a list of events, a
// whole answer as JSON, both indented.
func TestRecordingReads(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "weather_chat_stream.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"note": "Recorded by fakemodel.Replay from a server on the recording machine`,
		`"path": "/v1/chat/completions"`,
		`"events": [`,
		`{"text":"[DONE]"}`,
		`{"data":{"choices":[{"delta":{"content":"It "}`,
		`"Content-Type": "text/event-stream"`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the recording lacks %s", want)
		}
	}
}

var update = flag.Bool("update", false, "record the recordings under testdata again, from a scripted server")

// TestAgentReplay is the README's replaying test, as written there. With
// -update it first records the file again from a scripted server, as it
// was first recorded (there is no key here for a live provider).
func TestAgentReplay(t *testing.T) {
	if *update {
		t.Run("record", func(t *testing.T) {
			live := fakemodel.New(t, fakemodel.Call("get_weather", `{"city":"Paris"}`), fakemodel.Text("It is 18°C in Paris."))
			s := fakemodel.Replay(t, fixture, recordFrom(live)...)
			if answer, err := weatherIn(s, openai.ChatModelGPT5_2, "Paris"); err != nil || answer != "It is 18°C in Paris." {
				t.Fatalf("%q, %v", answer, err)
			}
		})
	}

	s := fakemodel.Replay(t, "testdata/weather_chat_stream.json")
	client := openai.NewClient(s.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)

	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_2,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")}}
	run, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params, nil, agent.Options{Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	s.AssertCalls(fakemodel.Called{Name: "get_weather", Args: `{"city":"Paris"}`, Result: "18°C in Paris"})
	if run.Answer() != "It is 18°C in Paris." {
		t.Errorf("answer %q", run.Answer())
	}
}

// TestRecordStream: server-sent events are kept as events whatever their
// line endings, comments or data of several lines, and replayed as the
// same events.
func TestRecordStream(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		io.WriteString(w, "event: x\r\ndata: {\"a\":1}\r\n\r\n: a comment\n\nid: 7\ndata:line 1\ndata: line 2\n\ndata: [DONE]\n\n")
	}))
	defer upstream.Close()
	file := filepath.Join(t.TempDir(), "stream.json")
	post := func(s *fakemodel.Server) string {
		resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Header.Get("Content-Type") + "\n" + string(b)
	}
	t.Run("record", func(t *testing.T) {
		post(fakemodel.Replay(t, file, fakemodel.Record(), fakemodel.Upstream(fakemodel.OpenAI, upstream.URL)))
	})
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := `"events": [
          {"event":"x","data":{"a":1}},
          {"text":"line 1\nline 2"},
          {"text":"[DONE]"}
        ]`
	if !strings.Contains(string(data), want) {
		t.Errorf("the recording lacks\n%s\nin\n%s", want, data)
	}
	got := post(fakemodel.Replay(t, file))
	if diff := cmp.Diff("text/event-stream; charset=utf-8\nevent: x\ndata: {\"a\":1}\n\ndata: line 1\ndata: line 2\n\ndata: [DONE]\n\n", got); diff != "" {
		t.Errorf("replayed (-want +got):\n%s", diff)
	}
}
