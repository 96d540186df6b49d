package adapt

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
)

func TestMediaTake(t *testing.T) {
	rules := &MediaRules{
		Provider: "Claude",
		Where:    "in tool results",
		Kinds: map[string]MediaRule{
			"image": {Types: []string{"image/png", "image/jpeg"}, Max: 100},
			"file":  {Types: []string{"application/pdf"}, Max: 1000},
		},
		Total: 1500,
	}
	withAudio := *rules
	withAudio.Kinds = map[string]MediaRule{"audio": {Max: 1000}} // of any type
	perResult := *rules
	perResult.PerResult = true
	manyTypes := *rules
	manyTypes.Kinds = map[string]MediaRule{"audio": {Types: []string{"audio/wav", "audio/ogg", "audio/flac", "audio/aac", "audio/aiff"}, Max: 10}}
	png := func(n int) toolreg.Media {
		return toolreg.Media{MIMEType: "image/png", Data: bytes.Repeat([]byte{1}, n)}
	}
	for _, tc := range []struct {
		name  string
		turn  [][]toolreg.Media // results, in call order
		notes [][]string        // per result, "" for media taken
		rules *MediaRules       // nil: rules
	}{
		{
			name:  "taken",
			turn:  [][]toolreg.Media{{png(10), {MIMEType: "Application/PDF; q=1", Data: []byte("%PDF"), Name: "a.pdf"}}},
			notes: [][]string{{"", ""}},
		},
		{
			name:  "a kind the provider takes no",
			turn:  [][]toolreg.Media{{{MIMEType: "audio/wav", Data: make([]byte, 2100000)}}},
			notes: [][]string{{`[an audio clip (audio/wav, 2.1 MB) was left out: Claude takes no audio in tool results]`}},
		},
		{
			name:  "a type it does not take",
			turn:  [][]toolreg.Media{{{MIMEType: "image/bmp", Data: []byte("BM"), Name: "x.bmp"}}},
			notes: [][]string{{`[an image "x.bmp" (image/bmp, 2 bytes) was left out: Claude takes images only as image/png or image/jpeg]`}},
		},
		{
			name:  "one type only",
			turn:  [][]toolreg.Media{{{MIMEType: "application/zip", Data: []byte("PK")}}},
			notes: [][]string{{`[a file (application/zip, 2 bytes) was left out: Claude takes files only as application/pdf]`}},
		},
		{
			name:  "a type it does not take, among many",
			turn:  [][]toolreg.Media{{{MIMEType: "audio/mpeg", Data: []byte("ID3")}}},
			notes: [][]string{{`[an audio clip (audio/mpeg, 3 bytes) was left out: Claude takes no audio/mpeg audio in tool results]`}},
			rules: &manyTypes,
		},
		{
			name:  "over the bound of one",
			turn:  [][]toolreg.Media{{png(101), png(100)}},
			notes: [][]string{{`[an image (image/png, 101 bytes) was left out: Claude takes images of up to 100 bytes in tool results]`, ""}},
		},
		{
			name:  "over the bound by less than the rounding",
			turn:  [][]toolreg.Media{{{MIMEType: "audio/ogg", Data: make([]byte, 1001)}, {MIMEType: "audio/x-anything", Data: make([]byte, 1000)}}},
			notes: [][]string{{`[an audio clip (audio/ogg, 1.0 kB) was left out: Claude takes audio of up to 1000 bytes in tool results, and this one has 1001]`, ""}},
			rules: &withAudio,
		},
		{
			name:  "empty",
			turn:  [][]toolreg.Media{{{MIMEType: "image/png", Name: "blank.png"}}},
			notes: [][]string{{`[an image "blank.png" (image/png, 0 bytes) was left out: it is empty]`}},
		},
		{
			name: "over the bound of the turn, across results",
			turn: [][]toolreg.Media{
				{{MIMEType: "application/pdf", Data: make([]byte, 1000)}},
				{png(100), {MIMEType: "application/pdf", Data: make([]byte, 1000)}, png(100)},
			},
			notes: [][]string{{""}, {"", `[a file (application/pdf, 1.0 kB) was left out: the results of this turn already carry 1.1 kB of media, and Claude takes up to 1.5 kB in one request]`, ""}},
		},
		{
			name:  "over the bound of one result",
			turn:  [][]toolreg.Media{{png(100), {MIMEType: "application/pdf", Data: make([]byte, 1000)}, {MIMEType: "application/pdf", Data: make([]byte, 1000)}}},
			notes: [][]string{{"", "", `[a file (application/pdf, 1.0 kB) was left out: this result already carries 1.1 kB of media, and Claude takes up to 1.5 kB in one result]`}},
			rules: &perResult,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rules
			if tc.rules != nil {
				r = tc.rules
			}
			turn := r.Turn()
			var got [][]string
			for _, media := range tc.turn {
				var notes []string
				for i, p := range turn.Take(media) {
					if (p.Media == nil) == (p.Note == "") {
						t.Fatalf("piece %d: media %v, note %q: want exactly one", i, p.Media, p.Note)
					}
					if p.Media != nil && !bytes.Equal(p.Media.Data, media[i].Data) {
						t.Errorf("piece %d: the data changed", i)
					}
					notes = append(notes, p.Note)
				}
				got = append(got, notes)
			}
			if diff := cmp.Diff(tc.notes, got); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMediaTakeBareType(t *testing.T) {
	rules := &MediaRules{Provider: "P", Kinds: map[string]MediaRule{"file": {Types: []string{"application/pdf"}, Max: 10}}, Total: 10}
	p := rules.Turn().Take([]toolreg.Media{{MIMEType: "Application/PDF; charset=binary", Data: []byte("%PDF")}})
	if p[0].Media == nil || p[0].Media.MIMEType != "application/pdf" {
		t.Errorf("got %+v, want the media with its bare type", p[0])
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int]string{0: "0 bytes", 1: "1 byte", 999: "999 bytes", 1000: "1.0 kB", 2100000: "2.1 MB", 3932160: "3.9 MB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
