package main

import (
	"io"
	"os"
	"os/signal"
	"sync/atomic"
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
	// Bubble Tea's own signal handling knows SIGINT and SIGTERM only; ours
	// covers SIGHUP too and keeps the signal for the exit code.
	p := tea.NewProgram(ui.New(s, o.session.Interval), tea.WithOutput(w), tea.WithoutSignals())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, stopSignals...)
	defer signal.Stop(sig)
	var got atomic.Pointer[os.Signal]

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
	go func() {
		select {
		case <-stop:
		case sg := <-sig:
			got.Store(&sg)
			p.Quit()
		}
	}()
	_, err = p.Run()
	if sg := got.Load(); sg != nil {
		return asSignalError(*sg)
	}
	return err
}
