package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/toolreg/toolreg"
)

// WeatherArgs are the arguments of get_weather.
type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name\\, e.g. Paris"`
	Days int    `json:"days,omitempty" jsonschema:"description=Days of forecast,minimum=1,maximum=7,default=1"`
}

// Forecast is get_weather's result.
type Forecast struct {
	City   string    `json:"city"`
	HighsC []float64 `json:"highs_c"`
	Sky    string    `json:"sky"`
}

// GetWeather returns a made-up but stable forecast: a demo needs no weather
// service.
var GetWeather = toolreg.MustNew("get_weather",
	"Daily high temperatures in degrees Celsius and the sky for a city. Use it for any weather question.",
	func(ctx context.Context, a WeatherArgs) (Forecast, error) {
		h := fnv.New32a()
		h.Write([]byte(a.City))
		seed := h.Sum32()
		f := Forecast{City: a.City, Sky: []string{"sunny", "cloudy", "light rain"}[seed%3]}
		for d := range a.Days {
			f.HighsC = append(f.HighsC, float64(12+(seed>>uint(d))%15))
		}
		return f, nil
	})

// ConvertArgs are the arguments of convert_temperature.
type ConvertArgs struct {
	Value float64 `json:"value" jsonschema:"description=The temperature to convert"`
	From  string  `json:"from" jsonschema:"enum=celsius,enum=fahrenheit"`
	To    string  `json:"to" jsonschema:"enum=celsius,enum=fahrenheit"`
}

// ConvertTemperature converts between Celsius and Fahrenheit.
var ConvertTemperature = toolreg.MustNew("convert_temperature",
	"Converts a temperature between Celsius and Fahrenheit. Use it instead of converting in your head.",
	func(ctx context.Context, a ConvertArgs) (string, error) {
		v := a.Value
		switch {
		case a.From == a.To:
		case a.From == "celsius":
			v = v*9/5 + 32
		default:
			v = (v - 32) * 5 / 9
		}
		return fmt.Sprintf("%g %s", math.Round(v*10)/10, a.To), nil
	})

func registry(opts ...toolreg.RegistryOption) *toolreg.Registry {
	reg := toolreg.NewRegistry(opts...)
	reg.MustAdd(GetWeather, ConvertTemperature)
	return reg
}
