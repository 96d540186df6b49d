package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOffline runs the README's command: the events of a run as they
// happen, the run continuing as new when it pauses, and the transcript of
// the run that waited a day for the host, decided through the workflow's
// Update.
func TestOffline(t *testing.T) {
	var out bytes.Buffer
	if err := offline(&out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := `   event 1, step 1: model call done, 100+20 tokens
   event 2, step 1: call get_weather {"city":"Oslo"}
   event 3, step 1: call get_weather {"city":"Roma"}
   event 4, step 1: result of get_weather: Oslo: 14 °C
   event 5, step 1: result of get_weather: no forecast for "Roma"; use Oslo or Rome
   event 6, step 2: model call done, 200+20 tokens
   event 7, step 2: call get_weather {"city":"Rome"}
   event 8, step 2: result of get_weather: Rome: 24 °C
   event 9, step 3: model call done, 300+20 tokens
   event 10, step 3: call book_hotel {"city":"Rome"}
   event 11, step 3: call pick_room {"city":"Rome"}
-- run 1 continues as new after step 3, 2 calls waiting for the host
-- 24h0m0s later, the run waits for the host:
   book_hotel {"city":"Rome"} needs approval
   pick_room {"city":"Rome"} asks {"options":["single","double"],"question":"Which room?"}
-- the host decides: approve call_4; answer call_5 "double"
   event 12, step 3: result of book_hotel: booked Hotel Artemide in Rome (booking call_4)
   event 13, step 3: result of pick_room: room: double
   event 14, step 4: model call done, 400+20 tokens
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
