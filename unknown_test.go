package toolreg

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnknownNameInALargeRegistryNamesTheNearest(t *testing.T) {
	r := NewRegistry()
	r.MustAdd(manyTools("tool_", 50_000)...)
	r.MustAdd(dynTool{name: "get_weather"}, dynTool{name: "get_weather_hourly"}, dynTool{name: "set_weather"}, dynTool{name: "get_time"})
	r.MustAdd(manyTools("more_", 50_000)...)
	out := r.Call(context.Background(), "get_wether", nil)
	want := `there is no tool named "get_wether"; there are 100004 tools, the nearest to this name: get_weather, set_weather, get_time, get_weather_hourly, tool_0`
	if diff := cmp.Diff(want, out.Text); diff != "" || !errors.Is(out.Err, ErrUnknownTool) || !out.IsError {
		t.Errorf("Err = %v (-want +got):\n%s", out.Err, diff)
	}
	// Any name, however far from every tool, gets a text of a few names.
	for _, name := range []string{"x", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "ツール", ""} {
		if out := r.Call(context.Background(), name, nil); len(out.Text) > 400 || !errors.Is(out.Err, ErrUnknownTool) {
			t.Errorf("%q: %d bytes: %q", name, len(out.Text), out.Text)
		}
	}
	// A view names the nearest of its own tools.
	view := r.Select(func(t AnyTool) bool { return t.Name()[0] != 'g' })
	out = view.Call(context.Background(), "get_wether", nil)
	want = `there is no tool named "get_wether"; there are 100001 tools, the nearest to this name: set_weather, tool_0, tool_1, tool_2, tool_3`
	if diff := cmp.Diff(want, out.Text); diff != "" {
		t.Errorf("view (-want +got):\n%s", diff)
	}
}

func TestUnknownNameListsASmallRegistryWhole(t *testing.T) {
	r := NewRegistry()
	tools := manyTools("t", 20)
	r.MustAdd(tools...)
	out := r.Call(context.Background(), "t7x", nil)
	want := `there is no tool named "t7x"; available tools: t7, t0, t1, t2, t3, t4, t5, t6, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17, t18, t19`
	if diff := cmp.Diff(want, out.Text); diff != "" {
		t.Errorf("20 tools (-want +got):\n%s", diff)
	}
	r.MustAdd(dynTool{name: "t20"})
	out = r.Call(context.Background(), "t7x", nil)
	want = `there is no tool named "t7x"; there are 21 tools, the nearest to this name: t7, t0, t1, t2, t3`
	if diff := cmp.Diff(want, out.Text); diff != "" {
		t.Errorf("21 tools (-want +got):\n%s", diff)
	}
}
