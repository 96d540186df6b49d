package toolopenai

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// BenchmarkStream measures what a streamed event costs on top of reading
// the SDK's stream alone: an answer of 1,000 text chunks, read with the
// SDK and its accumulator ("sdk"), and run through Chat.Run with Stream and an
// OnEvent that sees each delta ("Run_stream"). "ns/event" is per chunk.
func BenchmarkStream(b *testing.B) {
	const events = 1000
	reply := streamedAnswer(strings.TrimSpace(strings.Repeat("word ", events)))
	api := &adapttest.API{Error: func(msg string) string { return `{"error":{"message":` + msg + `}}` }}
	client := newClient(b, api)
	params := chatParams()
	run := func(b *testing.B, read func() error) {
		b.ReportAllocs()
		for b.Loop() {
			api.Replies = []string{reply}
			if err := read(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/events, "ns/event")
	}
	b.Run("sdk", func(b *testing.B) {
		run(b, func() error {
			stream := client.Chat.Completions.NewStreaming(context.Background(), params)
			defer stream.Close()
			var acc openai.ChatCompletionAccumulator
			n := 0
			for stream.Next() {
				acc.AddChunk(stream.Current())
				n += len(stream.Current().Choices)
			}
			return stream.Err()
		})
	})
	b.Run("Run_stream", func(b *testing.B) {
		a := NewChat(adapttest.Registry(nil))
		run(b, func() error {
			n := 0
			_, err := a.Run(context.Background(), &client.Chat.Completions, params, nil, agent.Options{Stream: true, OnEvent: func(e agent.Event) {
				if e.Kind == agent.TextDelta {
					n++
				}
			}})
			return err
		})
	})
}
