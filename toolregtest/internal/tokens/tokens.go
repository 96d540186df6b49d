// Package tokens counts tokens the way OpenAI's models read text, offline:
// the o200k_base encoding (GPT-4o and later), whose vocabulary the
// tokenizer module embeds in the binary, so nothing is downloaded.
package tokens

import (
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Encoding names the encoding Count uses.
const Encoding = "o200k_base"

// o200k builds the codec once, on first use: its vocabulary is a map of
// 200,000 entries, which a test that measures nothing should not pay for.
var o200k = sync.OnceValue(codec.NewO200kBase)

// Count is the number of o200k_base tokens in s. Text that is not valid
// UTF-8 is counted as its bytes are, as the encoding reads them.
func Count(s string) int {
	n, err := o200k().Count(s)
	if err != nil { // only in the codec's strict mode, which is not set
		return len(s)
	}
	return n
}
