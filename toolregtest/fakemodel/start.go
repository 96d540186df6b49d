package fakemodel

import (
	"fmt"
	"net/http/httptest"
)

// Start starts a Server outside a test, for a program's offline mode or
// a demo that runs without a key: the same script, clients, Requests and
// Calls as New's, but nothing to fail, so a request it cannot answer gets
// only the 500 that says why, and turns left over go unremarked. A
// malformed turn is an error. Close stops it.
func Start(script ...Turn) (*Server, error) {
	if err := checkScript(script); err != nil {
		return nil, err
	}
	s := &Server{script: script}
	s.srv = httptest.NewServer(s)
	return s, nil
}

// Close stops the server. A test's Cleanup closes a server of New or
// Replay; a server of Start needs it.
func (s *Server) Close() { s.srv.Close() }

// checkScript says which turn of script is malformed, if any.
func checkScript(script []Turn) error {
	for i, turn := range script {
		if err := turn.check(); err != nil {
			return fmt.Errorf("fakemodel: turn %d of the script: %w", i+1, err)
		}
	}
	return nil
}
