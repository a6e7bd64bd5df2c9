package main

import (
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/ui"
)

// TestLinkNotesSkipDisconnected pins what --headless does while the
// program is gone: no line for the marker, one note per break, one when
// it is back.
func TestLinkNotesSkipDisconnected(t *testing.T) {
	var b strings.Builder
	l := linkNotes{W: &b}
	live := session.Snapshot{Pool: session.Pool{Workers: 2}, Link: session.Link{Remote: "127.0.0.1:7070"}}
	gone := session.Snapshot{Link: session.Link{Remote: "127.0.0.1:7070", Disconnected: time.Date(2026, 12, 1, 9, 12, 3, 0, time.UTC)}}
	other := live
	other.Notice = "127.0.0.1:7070 is another process since 09:12:04: pid 42 (was pid 41)"
	for i, c := range []struct {
		s    session.Snapshot
		skip bool
	}{{live, false}, {gone, true}, {gone, true}, {live, false}, {live, false}, {other, false}, {other, false}} {
		if got := l.Skip(c.s); got != c.skip {
			t.Fatalf("sample %d: skip %v, want %v", i, got, c.skip)
		}
	}
	want := "offtop: disconnected from 127.0.0.1:7070 at 09:12:03; reconnecting every 500ms\n" +
		"offtop: reconnected to 127.0.0.1:7070\n" +
		"offtop: " + other.Notice + "\n"
	if b.String() != want {
		t.Fatalf("notes:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestLinkNotesSayAnotherProgram: --headless says on stderr when the
// program back on the address is another one, with both pids.
func TestLinkNotesSayAnotherProgram(t *testing.T) {
	var b strings.Builder
	l := linkNotes{W: &b}
	addr := "127.0.0.1:7070"
	l.Skip(session.Snapshot{Link: session.Link{Remote: addr, PID: 41}})
	l.Skip(session.Snapshot{Link: session.Link{Remote: addr, PID: 41, Disconnected: time.Now()}})
	l.Skip(session.Snapshot{Link: session.Link{Remote: addr, PID: 42, Earlier: []session.EarlierProgram{{PID: 41}}}})
	if !strings.Contains(b.String(), "reconnected to 127.0.0.1:7070: another program, pid 42 (was pid 41)") {
		t.Fatalf("notes:\n%s", b.String())
	}
}

// TestHeadlessFleetNotesNoSummary: a fleet prints no summary, so the
// note of a program replaced on an address says its rows are in its own
// lines, not "in the summary"; one attach with its summary says so still.
func TestHeadlessFleetNotesNoSummary(t *testing.T) {
	addr := "127.0.0.1:7070"
	for _, c := range []struct {
		o    options
		want string
	}{
		{options{noSummary: true, attach: &attachOptions{fleet: &fleetOptions{}}}, "pid 41's are in its own lines before\n"},
		{options{noSummary: true, attach: &attachOptions{}}, "pid 41's are in its own lines before\n"},
		{options{attach: &attachOptions{}}, "pid 41's are in the summary\n"},
	} {
		var out, stderr strings.Builder
		h := newHeadless(&runner{o: c.o}, &out, &stderr)
		h.sampled(session.Snapshot{Link: session.Link{Remote: addr, PID: 41}})
		h.sampled(session.Snapshot{Link: session.Link{Remote: addr, PID: 41, Disconnected: time.Now()}})
		h.sampled(session.Snapshot{Link: session.Link{Remote: addr, PID: 42, Earlier: []session.EarlierProgram{{PID: 41}}}})
		if !strings.HasSuffix(stderr.String(), "another program, pid 42 (was pid 41); the sizes rows from here are its own, "+c.want) {
			t.Errorf("fleet %v, no summary %v: notes:\n%s\nwant the last ending %q", c.o.attach.fleet != nil, c.o.noSummary, stderr.String(), c.want)
		}
	}
}

func TestParseAttach(t *testing.T) {
	o, tok, err := parseAttach([]string{"--headless", "127.0.0.1:7070", "--token", "abc", "--keys", "3s:4"})
	if err != nil || o.attach.addr != "127.0.0.1:7070" || tok != "abc" || !o.headless || len(o.keys) != 1 {
		t.Fatalf("%+v %q %v", o, tok, err)
	}
	for _, args := range [][]string{nil, {"a:1", "--duration", "-1s"}, {"a:1", "--keys", "x"}} {
		if _, _, err := parseAttach(args); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

// TestAttachKeysRefusesScenarioKeys: a --keys script for attach takes
// only what an attached run does (the pool, GOMAXPROCS, reset, auto, the
// view, quit); a scenario's key is refused before the run, naming the
// key and its step, never sent to do nothing.
func TestAttachKeysRefusesScenarioKeys(t *testing.T) {
	for _, k := range []string{"tab", "space", "[", "]", "u", "l", "L", "s", "S", "c", "p", "o"} {
		_, _, err := parseAttach([]string{"a:1", "--keys", "1s:3 2s:" + k})
		want := "attach: --keys: " + k + " is not available attached ("
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), `: step 2 "2s:`+k+`"`) {
			t.Errorf("--keys 2s:%s: %v, want %q... step 2", k, err, want)
		}
	}
	for _, k := range []string{"+", "-", "up", "down", "0", "9", "a", "r", "g", "G", "=", "d", "?", "q", "ctrl+c"} {
		if _, _, err := parseAttach([]string{"a:1", "--keys", "1s:" + k}); err != nil {
			t.Errorf("--keys 1s:%s: %v", k, err)
		}
	}
	if ks := strings.Join(ui.AttachedKeys(), " "); strings.Contains(ks, "tab") || !strings.Contains(ks, "G =") {
		t.Errorf("attachedKeys: %s", ks)
	}
}
