package args

// decimal is a JSON number literal read exactly, without arithmetic: the
// value is digits × 10^exp, digits without leading or trailing zeros ("" for
// zero). The fast path compares numbers on a bound and reads integers
// written 5.0 or 1e2 with it, where big.Rat would allocate for each value.
type decimal struct {
	neg    bool
	digits []byte
	exp    int
}

// parseDecimal reads a valid JSON number literal, keeping its digits in
// buf's storage.
func parseDecimal(lit []byte, buf []byte) decimal {
	d := decimal{digits: buf[:0]}
	i := 0
	if i < len(lit) && lit[i] == '-' {
		d.neg = true
		i++
	}
	dot := false
	for ; i < len(lit); i++ {
		c := lit[i]
		switch {
		case c >= '0' && c <= '9':
			if dot {
				d.exp--
			}
			if len(d.digits) > 0 || c != '0' {
				d.digits = append(d.digits, c)
			}
		case c == '.':
			dot = true
		case c == 'e' || c == 'E':
			d.exp += parseExponent(lit[i+1:])
			i = len(lit)
		}
	}
	for len(d.digits) > 0 && d.digits[len(d.digits)-1] == '0' {
		d.digits = d.digits[:len(d.digits)-1]
		d.exp++
	}
	if len(d.digits) == 0 {
		d.neg, d.exp = false, 0
	}
	return d
}

// parseExponent reads [+-]digits, saturating far beyond any exponent the
// number limits let through.
func parseExponent(b []byte) int {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	e := 0
	for _, c := range b {
		if e < 1<<30 {
			e = e*10 + int(c-'0')
		}
	}
	if neg {
		return -e
	}
	return e
}

func (d decimal) zero() bool { return len(d.digits) == 0 }

// isInt reports a whole number.
func (d decimal) isInt() bool { return d.exp >= 0 }

// magnitude is the power of ten just above the value's leading digit.
func (d decimal) magnitude() int { return len(d.digits) + d.exp }

// cmp compares two decimals: -1, 0 or 1.
func (d decimal) cmp(e decimal) int {
	switch {
	case d.zero() && e.zero():
		return 0
	case d.zero():
		return sign(!e.neg) * -1
	case e.zero():
		return sign(!d.neg)
	case d.neg != e.neg:
		return sign(!d.neg)
	}
	c := 0
	switch {
	case d.magnitude() != e.magnitude():
		c = sign(d.magnitude() > e.magnitude())
	default:
		n := min(len(d.digits), len(e.digits))
		for i := 0; i < n && c == 0; i++ {
			if d.digits[i] != e.digits[i] {
				c = sign(d.digits[i] > e.digits[i])
			}
		}
		if c == 0 && len(d.digits) != len(e.digits) {
			c = sign(len(d.digits) > len(e.digits)) // the longer has more non-zero digits
		}
	}
	if d.neg {
		return -c
	}
	return c
}

func sign(positive bool) int {
	if positive {
		return 1
	}
	return -1
}

// uint64 is the magnitude of a whole number, when it fits.
func (d decimal) uint64() (uint64, bool) {
	if !d.isInt() || d.magnitude() > 20 {
		return 0, false
	}
	var u uint64
	for i := 0; i < d.magnitude(); i++ {
		digit := uint64(0)
		if i < len(d.digits) {
			digit = uint64(d.digits[i] - '0')
		}
		if u > (1<<64-1-digit)/10 {
			return 0, false
		}
		u = u*10 + digit
	}
	return u, true
}

// int64 is the value of a whole number, when it fits.
func (d decimal) int64() (int64, bool) {
	u, ok := d.uint64()
	switch {
	case !ok:
		return 0, false
	case d.neg && u <= 1<<63:
		return int64(-u), true
	case !d.neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}
