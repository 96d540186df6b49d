package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOffline runs the README's command: the transcript of a run that
// waited a day for the host, decided through the workflow's Update.
func TestOffline(t *testing.T) {
	var out bytes.Buffer
	if err := offline(&out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := `-- 24h0m0s later, the run waits for the host:
   book_hotel {"city":"Rome"} needs approval
   pick_room {"city":"Rome"} asks {"options":["single","double"],"question":"Which room?"}
-- the host decides: approve call_4; answer call_5 "double"
user: Plan two days in Oslo or Rome, whichever is warmer, and book a hotel.
[step 1] assistant calls get_weather {"city":"Oslo"}
[step 1] assistant calls get_weather {"city":"Roma"}
[step 1]   get_weather: Oslo: 14 °C
[step 1]   get_weather: no forecast for "Roma"; use Oslo or Rome
           Fix this and call the tool again.
[step 2] assistant calls get_weather {"city":"Rome"}
[step 2]   get_weather: Rome: 24 °C
[step 3] assistant calls book_hotel {"city":"Rome"}
[step 3] assistant calls pick_room {"city":"Rome"}
[step 3]   book_hotel: booked Hotel Artemide in Rome (booking call_4)
[step 3]   pick_room: room: double
assistant: Rome is warmer (24 °C against 14 °C). Hotel Artemide is booked, a double room.
(4 steps, 4 model calls, 1000+80 tokens, 24h0m0s of workflow time)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
