package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

const offlinePrompt = "Paris or Rome: where is it warmer tomorrow? Give the high in Fahrenheit."

// offlineModel is a stand-in for a model: fakemodel's scripted server,
// speaking the Chat Completions wire protocol, so that the real SDK client
// and the real runner do the work. Its script plans a picnic: two weather
// calls in parallel, a conversion sent with wrong arguments and then
// corrected, and an answer built from the tools' real results, which each
// turn reads from the request it answers.
func offlineModel() (*fakemodel.Server, error) {
	results := map[string]string{} // call id → the result sent back, over the run
	read := func(r fakemodel.Request) {
		for _, res := range r.ToolResults() {
			results[res.ID] = res.Text
		}
	}
	call := func(id, name, args string) fakemodel.Turn {
		return fakemodel.Calls(fakemodel.ToolCall{ID: id, Name: name, Args: args})
	}
	return fakemodel.Start(
		fakemodel.Calls(
			fakemodel.ToolCall{ID: "call_paris", Name: "get_weather", Args: `{"city":"Paris","days":2}`},
			fakemodel.ToolCall{ID: "call_rome", Name: "get_weather", Args: `{"city":"Rome","days":2}`}),
		fakemodel.Func(func(r fakemodel.Request) fakemodel.Turn {
			read(r)
			_, high := warmer(results["call_paris"], results["call_rome"])
			// A typical slip: the number as a string and an unknown unit.
			return call("call_convert_1", "convert_temperature", fmt.Sprintf(`{"value":"%g","from":"C","to":"fahrenheit"}`, high))
		}),
		fakemodel.Func(func(r fakemodel.Request) fakemodel.Turn {
			read(r)
			if !strings.HasPrefix(results["call_convert_1"], "invalid arguments") {
				return fakemodel.Text("I expected my conversion call to be refused; it was not: " + results["call_convert_1"])
			}
			_, high := warmer(results["call_paris"], results["call_rome"])
			return call("call_convert_2", "convert_temperature", fmt.Sprintf(`{"value":%g,"from":"celsius","to":"fahrenheit"}`, high))
		}),
		fakemodel.Func(func(r fakemodel.Request) fakemodel.Turn {
			read(r)
			city, high := warmer(results["call_paris"], results["call_rome"])
			if missing := unforecast(results["call_paris"], results["call_rome"]); missing != "" {
				return fakemodel.Text(fmt.Sprintf("I have no forecast for %s; %s will have a high of %g °C (%s) tomorrow.", missing, city, high, results["call_convert_2"]))
			}
			return fakemodel.Text(fmt.Sprintf("%s will be warmer tomorrow, with a high of %g °C (%s).", city, high, results["call_convert_2"]))
		}),
	)
}

// unforecast names the city of a get_weather result that is no forecast
// (the call was refused), or "".
func unforecast(paris, rome string) string {
	var f Forecast
	switch {
	case json.Unmarshal([]byte(paris), &f) != nil:
		return "Paris"
	case json.Unmarshal([]byte(rome), &f) != nil:
		return "Rome"
	}
	return ""
}

// warmer reads two get_weather results and returns the city with the higher
// high tomorrow (the second forecast day) and that high.
func warmer(a, b string) (string, float64) {
	var fa, fb Forecast
	json.Unmarshal([]byte(a), &fa)
	json.Unmarshal([]byte(b), &fb)
	high := func(f Forecast) float64 {
		if len(f.HighsC) < 2 {
			return -1000
		}
		return f.HighsC[1]
	}
	if high(fb) > high(fa) {
		return fb.City, high(fb)
	}
	return fa.City, high(fa)
}
