package args

import (
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestDecimalAgreesWithBigRat compares decimal with exact rational
// arithmetic on random literals written in every JSON form.
func TestDecimalAgreesWithBigRat(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "0000123456789"[rng.IntN(13)]
		}
		return string(b)
	}
	literal := func() string {
		s := ""
		if rng.IntN(3) == 0 {
			s = "-"
		}
		if int := digits(1 + rng.IntN(22)); int[0] == '0' {
			s += "0"
		} else {
			s += int
		}
		if rng.IntN(2) == 0 {
			s += "." + digits(1+rng.IntN(22))
		}
		if rng.IntN(2) == 0 {
			s += []string{"e", "E", "e+", "e-"}[rng.IntN(4)] + strconv.Itoa(rng.IntN(30))
		}
		return s
	}
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("big.Rat cannot read %q", s)
		}
		return r
	}
	for range 20000 {
		a, b := literal(), literal()
		if rng.IntN(5) == 0 {
			b = a + "0" // equal values, other spellings
			if !contains(a, '.') && !contains(a, 'e') && !contains(a, 'E') {
				b = a + ".000"
			}
		}
		da, db := parseDecimal([]byte(a), nil), parseDecimal([]byte(b), nil)
		if got, want := da.cmp(db), rat(a).Cmp(rat(b)); got != want {
			t.Fatalf("cmp(%s, %s) = %d, want %d", a, b, got, want)
		}
		ra := rat(a)
		if da.isInt() != ra.IsInt() {
			t.Fatalf("isInt(%s) = %v", a, da.isInt())
		}
		i, ok := da.int64()
		wantOK := ra.IsInt() && ra.Num().IsInt64()
		if ok != wantOK || ok && i != ra.Num().Int64() {
			t.Fatalf("int64(%s) = %d, %v", a, i, ok)
		}
		u, ok := da.uint64()
		abs := new(big.Int).Abs(ra.Num())
		if wantOK := ra.IsInt() && abs.IsUint64(); ok != wantOK || ok && u != abs.Uint64() {
			t.Fatalf("uint64(%s) = %d, %v", a, u, ok)
		}
	}
}

func contains(s string, c byte) bool {
	for i := range len(s) {
		if s[i] == c {
			return true
		}
	}
	return false
}
