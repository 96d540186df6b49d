package agent

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// sealPrefix names the MAC; the State's JSON follows a line that says what
// it is, so that a MAC of this key over other data never passes as a seal.
const (
	sealPrefix  = "hmac-sha256:"
	sealContext = "toolreg agent.State v1\n"
)

// Verify reports whether s carries a valid seal of key (Options.StateKey),
// as an error matching ErrInvalidState: the State as it was sealed, with
// the host's decisions made in this process since (Approve, ApproveWith,
// Reject, Answer). A host that loads a sealed State may verify it before
// showing its pending calls to anyone; the runners verify it before
// resuming it.
func (s *State) Verify(key []byte) error {
	if len(key) == 0 {
		return errors.New("agent: verifying a state's seal without a key")
	}
	if s.Seal == "" {
		return invalid("the state carries no seal, and the runner has a key: it was not sealed with it, or the seal was removed")
	}
	got, ok := strings.CutPrefix(s.Seal, sealPrefix)
	mac, err := base64.RawURLEncoding.DecodeString(got)
	if !ok || err != nil {
		return invalid("seal: %q is not a seal", s.Seal)
	}
	want, err := s.mac(key, true)
	if err != nil {
		return invalid("seal: %v", err)
	}
	if !hmac.Equal(mac, want) {
		return invalid("seal: the state does not match its seal: it was changed after it was sealed, or sealed with another key")
	}
	return nil
}

// Reseal seals s with key as it is, the host's decisions included, so that
// another process can resume it with the same key: decide, reseal, save;
// load and resume elsewhere. It first verifies the seal s carries (a Fresh
// State needs none), so that it never vouches for a State someone else
// changed.
func (s *State) Reseal(key []byte) error {
	if len(key) == 0 {
		return errors.New("agent: sealing a state without a key")
	}
	if !s.Fresh() {
		if err := s.Verify(key); err != nil {
			return err
		}
	}
	return s.seal(key)
}

// seal seals s with key as it is, without checking it first: the runners
// seal what they return with it. The decisions made in this process are
// part of what it vouches for from then on.
func (s *State) seal(key []byte) error {
	mac, err := s.mac(key, false)
	if err != nil {
		return fmt.Errorf("agent: sealing the state: %w", err)
	}
	s.Seal = sealPrefix + base64.RawURLEncoding.EncodeToString(mac)
	for i := range s.Turn {
		s.Turn[i].before = nil
	}
	return nil
}

// mac is the HMAC-SHA256 of s's JSON, without its seal; with before, each
// call the host decided in this process is as it was before.
func (s *State) mac(key []byte, before bool) ([]byte, error) {
	c := *s
	c.Seal = ""
	if before {
		c.Turn = slices.Clone(s.Turn)
		for i := range c.Turn {
			if b, ok := c.Turn[i].decidedHere(); ok {
				c.Turn[i] = b
			}
		}
	}
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	h := hmac.New(sha256.New, key)
	h.Write([]byte(sealContext))
	h.Write(b)
	return h.Sum(nil), nil
}
