package agent_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
)

// Deferred tools are left out of the requests until the model finds them
// with the tool search the run declares; a found tool is declared from
// the next step on, at the end of the array. (book_hotel needs approval:
// the run pauses.)
func ExampleOptions_defer() {
	srv := offlineModel(`search_tools {"query":"book a hotel"}`, `book_hotel {"city":"Oslo"}`)
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather, book)
	run, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params("A room in Oslo?"), nil, agent.Options{
		Defer: func(t toolreg.AnyTool) bool { return t.Name() == "book_hotel" },
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.CallResult {
				fmt.Println(strings.ReplaceAll(e.Output.Text, "\n", "\n    "))
			}
		},
	})
	fmt.Println(err, run.State.Loaded)
	// Output:
	//   (the model is offered [get_weather search_tools], tool_choice "auto")
	// found 1 tool; it is declared to you from your next turn on, and you may call it:
	//     - book_hotel: Books a hotel room.
	//   (the model is offered [get_weather search_tools book_hotel], tool_choice "auto")
	// the run is waiting for the host [book_hotel]
}

// KeywordSearch ranks tools by the words of a query in their names,
// descriptions and tags.
func ExampleKeywordSearch() {
	tools := []toolreg.AnyTool{
		weather,
		book,
		toolreg.MustNew("cancel_booking", "Cancels a hotel booking.", func(context.Context, struct{}) (string, error) { return "", nil }),
	}
	names, _ := agent.KeywordSearch{}.Search(context.Background(), "cancel my hotel", tools, 5)
	fmt.Println(names)
	// Output:
	// [cancel_booking book_hotel]
}

// A Model says whether its provider searches the deferred tools itself.
// The runners of toolanthropic and toolopenai.Responses do (unless made
// WithClientToolSearch); a model a host drives itself, from an adapter's
// Model method, leaves the search to the loop.
func ExampleNativeSearcher() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather, book)
	var st agent.State
	m, err := toolopenai.NewResponses(reg).Model(nil, responses.ResponseNewParams{Model: "gpt-4.1-mini"}, &st)
	if err != nil {
		panic(err)
	}
	ns, ok := m.(agent.NativeSearcher)
	fmt.Println(ok && ns.SearchesNatively())
	// Output:
	// false
}
