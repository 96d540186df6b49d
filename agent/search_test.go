package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
)

// tagged is a tool with a name, a description and tags.
type tagged struct {
	name, desc string
	tags       []string
}

func (t tagged) Name() string                  { return t.name }
func (t tagged) Description() string           { return t.desc }
func (t tagged) Tags() []string                { return t.tags }
func (t tagged) InputSchema() json.RawMessage  { return json.RawMessage(`{"type":"object"}`) }
func (t tagged) OutputSchema() json.RawMessage { return nil }
func (t tagged) Invoke(context.Context, json.RawMessage) toolreg.Output {
	return toolreg.Output{}
}

func TestWords(t *testing.T) {
	got := words("github__createIssue: Lists the OPEN issues, of a repo-name.")
	want := []string{"github", "create", "issue", "list", "the", "open", "issue", "of", "a", "repo", "name"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("words (-want +got):\n%s", diff)
	}
}

// TestKeywordSearch: words of the name count more than the description's,
// tags count, small words do not, a tool's exact name comes first, and
// the limit holds.
func TestKeywordSearch(t *testing.T) {
	tools := []toolreg.AnyTool{
		tagged{"send_email", "Sends a message to a customer.", nil},
		tagged{"list_messages", "Lists the emails in a mailbox.", nil},
		tagged{"refund_order", "Gives a customer their money back.", []string{"billing"}},
		tagged{"create_invoice", "Creates an invoice for an order.", []string{"billing"}},
		tagged{"get_weather", "Forecast for a city.", nil},
	}
	tests := []struct {
		query string
		limit int
		want  []string
	}{
		{"email", 5, []string{"send_email", "list_messages"}},
		{"billing", 5, []string{"refund_order", "create_invoice"}},
		{"refund the order", 1, []string{"refund_order"}},
		{"create_invoice", 5, []string{"create_invoice"}},
		{"the a for", 5, nil},
		{"submarine", 5, nil},
	}
	for _, tt := range tests {
		got, err := KeywordSearch{}.Search(context.Background(), tt.query, tools, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.query, diff)
		}
	}
}
