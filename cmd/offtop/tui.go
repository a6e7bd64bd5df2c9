package main

import (
	"errors"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/ui"
)

// runTUI runs the dashboard until q, ctrl+c, --duration, SIGINT or SIGTERM.
// Bubble Tea restores the terminal on each of these and on a panic in the
// UI path.
func runTUI(o options, w io.Writer) error {
	s, err := session.New(o.session)
	if err != nil {
		return err
	}
	defer s.Close()
	p := tea.NewProgram(ui.New(s, o.session.Interval), tea.WithOutput(w))

	stop := make(chan struct{})
	defer close(stop)
	start := time.Now()
	go playKeys(o.keys, start, stop, func(key string) { p.Send(ui.KeyMsg(key)) })
	if o.duration > 0 {
		go func() {
			t := time.NewTimer(o.duration)
			defer t.Stop()
			select {
			case <-stop:
			case <-t.C:
				p.Quit()
			}
		}()
	}
	_, err = p.Run()
	if errors.Is(err, tea.ErrInterrupted) {
		return errInterrupted
	}
	return err
}
