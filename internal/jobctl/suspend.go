package jobctl

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/sys/unix"

	"github.com/offtop/offtop/internal/crash"
)

// Suspender suspends the dashboard as htop and less do: on ctrl+z typed
// in it (raw mode: the terminal sends no signal, Bubble Tea gives the key)
// or SIGTSTP sent to the process (kill -TSTP), it restores the terminal
// (leaves the alternate screen, puts echo and line mode back), then stops
// the process as the terminal's own ctrl+z would (a shell with job
// control says "Stopped" and resumes it with fg). On SIGCONT it
// re-enters the alternate screen and redraws it whole, but only once the
// process is the terminal's foreground again: continued in the background
// (kill -CONT while the shell holds the terminal, or bg) it stops again
// rather than draw over the shell, and resumes at fg.
//
// The process is stopped meanwhile, offtop's engine with it: no sample is
// taken, and the Loop probe's next sample runs late by the time stopped,
// so the probe's max (live and in the summary) includes it, as it would
// any stop of the world (SIGSTOP, a VM paused), and the samples not taken
// are counted as missed. The summary says so with how long it was
// suspended (note).
//
// A stop signal (SIGINT, SIGTERM, SIGHUP) wins over the suspension: one
// pending when the process is continued (kill %1 sends SIGTERM then
// SIGCONT; so does kill -TERM $pid; kill -CONT $pid) ends the stopping
// loop at once, in the background too, and the run ends as that signal
// says, the terminal left as the suspension restored it: nothing is drawn
// after the suspension left the alternate screen (see termGate). So does
// any quit that comes from the suspension until the dashboard is drawn
// again (the end of --duration, a q from --keys): it is held and ends the
// run at the resume. One received before a suspension cancels it.
//
// A stop from outside (SIGSTOP: a debugger, a job controller, docker
// pause) reaches no handler: the process stops with the dashboard on the
// terminal, and a shell with job control takes the terminal back in its
// own modes. The SIGCONT that ends it is the notice: any SIGCONT that no
// suspension of offtop's is waiting for (kill -CONT, or the shell's fg)
// makes the Suspender take the terminal again, the alternate screen and
// raw mode set afresh and the dashboard redrawn whole, once the process
// is the terminal's foreground: continued in the background, it stops
// itself again, as a suspension does, until fg, and the frames Bubble Tea
// draws before it has are dropped (Output.hold). A SIGCONT that came
// with no stop costs a redraw.
type Suspender struct {
	p    *tea.Program
	tty  int // fd of the terminal, for its foreground process group; -1 unknown
	want chan struct{}
	tstp chan os.Signal
	cont chan os.Signal // SIGCONT
	quit chan os.Signal // stop signals: a copy of those the run's own handler gets
	done chan struct{}
	out  *Output // the Program's output, its writes counted; nil when not a file
	// isKey reports whether a key press is the suspend key.
	isKey func(key string) bool

	gate     termGate
	signaled atomic.Pointer[os.Signal] // the first stop signal: suspend no more
	killed   atomic.Bool               // the Suspender ended the program (end)
	killedBy atomic.Pointer[os.Signal] // the stop signal it ended it for; nil for a held quit

	mu      sync.Mutex
	n       int           // suspensions
	stopped time.Duration // wall time suspended, in all
	outside int           // SIGCONTs with no suspension of offtop's waiting for them
}

// Output is a Program's output file that counts the writes to it, so
// that a resume can tell whether the dashboard was drawn again, drops
// them while hold says (nil: never), and tells failed when one fails
// (nil: nobody to tell).
type Output struct {
	*os.File
	writes atomic.Int64
	hold   func() bool
	failed func()
}

// NewOutput is f as a Program's output; failed (nil: nobody) is told
// when a write fails.
func NewOutput(f *os.File, failed func()) *Output { return &Output{File: f, failed: failed} }

// Write writes b to the file and counts the call; held, it writes
// nothing and reports all of b written.
func (f *Output) Write(b []byte) (int, error) {
	f.writes.Add(1)
	if f.hold != nil && f.hold() {
		return len(b), nil
	}
	n, err := f.File.Write(b)
	if err != nil && f.failed != nil {
		f.failed()
	}
	return n, err
}

// NewSuspender starts listening for SIGTSTP and suspend requests (Ask);
// Stop ends it. out is p's output (the terminal), nil when not a file;
// isKey reports whether a key press (tea.KeyPressMsg.String) suspends.
func NewSuspender(p *tea.Program, out *Output, isKey func(key string) bool) *Suspender {
	s := &Suspender{p: p, tty: -1, out: out, isKey: isKey, want: make(chan struct{}, 1), tstp: make(chan os.Signal, 1),
		cont: make(chan os.Signal, 1), quit: make(chan os.Signal, 1), done: make(chan struct{})}
	if out != nil {
		s.tty = int(out.Fd())
		out.hold = s.background
	}
	signal.Notify(s.tstp, syscall.SIGTSTP)
	signal.Notify(s.cont, syscall.SIGCONT)
	signal.Notify(s.quit, StopSignals...)
	crash.Go(s.loop)
	return s
}

// ask requests a suspension (ctrl+z); it never blocks.
func (s *Suspender) Ask() {
	select {
	case s.want <- struct{}{}:
	default:
	}
}

// Stop ends the listening: SIGTSTP stops the process plainly again.
func (s *Suspender) Stop() {
	close(s.done)
	signal.Stop(s.tstp)
	signal.Stop(s.cont)
	signal.Stop(s.quit)
}

// stopPending reports whether a stop signal has come, now or before, or
// the gate holds a quit.
func (s *Suspender) stopPending() bool {
	select {
	case sg := <-s.quit:
		s.signaled.CompareAndSwap(nil, &sg)
	default:
	}
	return s.signaled.Load() != nil || s.gate.held()
}

func (s *Suspender) loop() {
	for {
		select {
		case <-s.done:
			return
		case <-s.tstp:
		case <-s.want:
		case sg := <-s.quit:
			s.signaled.CompareAndSwap(nil, &sg)
			continue
		case <-s.cont:
			if !s.stopPending() {
				s.continued()
			}
			continue
		}
		if !s.stopPending() {
			s.suspend()
		}
	}
}

// continued takes the terminal back after a SIGCONT that no suspension
// was waiting for (a stop from outside): from the foreground at once,
// from the background once fg has made it the foreground (it stops
// itself until then). It ends the program instead when a stop comes
// meanwhile, as suspend does.
func (s *Suspender) continued() {
	if !s.gate.release() {
		return // a quit went through: the program is stopping
	}
	s.mu.Lock()
	s.outside++
	s.mu.Unlock()
	if !s.foreground() {
		// Nothing is written first: the terminal is the shell's, in its
		// modes, and setting them from the background would stop the
		// process on SIGTTOU.
		s.stopUntilForeground()
	}
	if s.stopPending() {
		s.end()
		return
	}
	if err := s.p.ReleaseTerminal(); err == nil {
		s.restore()
	}
	if s.gate.reclaim(s.stopPending()) {
		s.end()
	}
}

// suspend restores the terminal, stops the process and, once continued
// in the foreground, takes the terminal back. A stop that comes meanwhile
// (a stop signal, or a quit the gate held) ends the program with Kill,
// whatever state the terminal is in: Kill draws no last frame and leaves
// the terminal restored.
func (s *Suspender) suspend() {
	if !s.gate.release() {
		return // a quit went through: the program is stopping
	}
	if err := s.p.ReleaseTerminal(); err == nil {
		s.stopUntilForeground()
	}
	if s.stopPending() {
		s.end()
		return
	}
	s.restore()
	if s.gate.reclaim(s.stopPending()) {
		s.end()
	}
}

// stopUntilForeground stops the process until it is continued as the
// terminal's foreground, or continued with a stop pending, and counts the
// time stopped.
func (s *Suspender) stopUntilForeground() {
	from := time.Now()
	for {
		select {
		case <-s.cont: // one from before this stop
		default:
		}
		// SIGSTOP, not SIGTSTP: once Notify has caught SIGTSTP the Go
		// runtime keeps its handler, and a SIGTSTP would be dropped. Only
		// this process: a parent without job control (sh -c in a tmux
		// pane) in the same group must not be stopped with it.
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		<-s.cont
		if !s.stopAgain(contGrace) {
			break
		}
	}
	s.mu.Lock()
	s.n++
	s.stopped += time.Since(from)
	s.mu.Unlock()
}

// contGrace is how long a continue in the background waits for a stop
// signal sent with it before the process stops again. A SIGTERM sent to
// a stopped process (as a shell's kill does, then SIGCONT) is delivered
// on the continue, but its handler may run on another thread after
// SIGCONT's has reached the cont channel.
const contGrace = 100 * time.Millisecond

// stopAgain reports whether a continued process should stop again: not
// in the foreground, and no stop signal, held quit or one within grace,
// nor a continue into the foreground (fg) within it.
func (s *Suspender) stopAgain(grace time.Duration) bool {
	if s.stopPending() || s.foreground() {
		return false
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	for {
		select {
		case sg := <-s.quit:
			s.signaled.CompareAndSwap(nil, &sg)
			return false
		case <-s.cont: // fg meanwhile: the shell made this the foreground first
			if s.foreground() {
				return false
			}
		case <-t.C:
			return !s.stopPending() && !s.foreground()
		}
	}
}

// end ends the program for a stop that came while the gate was released:
// Kill, not Quit, as Quit draws a last frame, over the shell's screen when
// the terminal is released. Bubble Tea sets the terminal's modes again as
// it stops: from the background that raises SIGTTOU, which would stop the
// process once more.
func (s *Suspender) end() {
	signal.Ignore(syscall.SIGTTOU)
	s.killedBy.Store(s.signaled.Load())
	s.killed.Store(true)
	s.p.Kill()
}

// redrawWait is how long a resume waits for the dashboard's first write
// before it restarts Bubble Tea's renderer. A restart costs a flicker; the
// first frame normally comes within a frame period (1/60 s).
const redrawWait = 300 * time.Millisecond

// restore takes the terminal back and redraws the dashboard whole (the
// screen was the shell's meanwhile). Bubble Tea's renderer can come back
// dead: ReleaseTerminal's render goroutine stops the frame ticker after
// it has been told to end, and when that Stop runs only after the
// process is continued, it stops the ticker RestoreTerminal has just
// reset, and no frame is drawn again (the alternate screen stays off,
// keys and resizes change nothing). So restore watches for the first
// write and, when none comes within redrawWait, releases and restores
// again (the old goroutine has had its time to stop by then).
func (s *Suspender) restore() {
	for try := 0; ; try++ {
		var before int64
		if s.out != nil {
			before = s.out.writes.Load()
		}
		_ = s.p.RestoreTerminal()
		s.p.Send(tea.ClearScreen())
		if s.out == nil || try == 4 || s.drewSince(before, redrawWait) {
			return
		}
		if s.stopPending() || s.p.ReleaseTerminal() != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// drewSince reports whether the output was written to after the count
// before, waiting at most wait for it.
func (s *Suspender) drewSince(before int64, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for s.out.writes.Load() == before {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// background reports whether the dashboard must not be drawn: the
// process is not the terminal's foreground (continued from outside while
// the shell holds the terminal, before the Suspender has stopped it
// again) and the program is not ending (its last writes restore the
// terminal, and go out from the background too).
func (s *Suspender) background() bool {
	return !s.killed.Load() && !s.gate.stopping() && !s.foreground()
}

// foreground reports whether this process's group is the terminal's
// foreground group (true when unknown).
func (s *Suspender) foreground() bool {
	if s.tty < 0 {
		return true
	}
	pg, err := unix.IoctlGetInt(s.tty, unix.TIOCGPGRP)
	return err != nil || pg == syscall.Getpgrp()
}

// Filter is the Program's message filter: the suspend key (isKey) asks for a
// suspension instead of reaching the dashboard; a quit (q, --duration, the first
// stop signal: every graceful end passes here as a tea.QuitMsg) goes
// through only while the dashboard holds the terminal, and is held for
// the Suspender while a suspension has it (termGate).
func (s *Suspender) Filter(_ tea.Model, msg tea.Msg) tea.Msg {
	switch m := msg.(type) {
	case tea.KeyPressMsg:
		if s.isKey(m.String()) {
			s.Ask()
			return nil
		}
	case tea.QuitMsg:
		if !s.gate.quit() {
			return nil
		}
	}
	return msg
}

// endedRun reports whether the Suspender ended the program (Kill, for a
// stop that came while it had the terminal): Run's ErrProgramKilled is
// then a stop as asked, not an error.
func (s *Suspender) EndedRun() bool { return s.killed.Load() }

// endedBy is the stop signal the Suspender ended the program for; nil
// when it did not end it, or ended it for a held quit. The run's own
// handler gets the same signal, perhaps only after the program has ended:
// it is then this one, not a second.
func (s *Suspender) EndedBy() os.Signal {
	if !s.killed.Load() {
		return nil
	}
	if sg := s.killedBy.Load(); sg != nil {
		return *sg
	}
	return nil
}

// note tells, after the summary, how long the run was suspended and how
// often it was continued after a stop from outside; nothing when neither.
func (s *Suspender) Note(w io.Writer) error {
	s.mu.Lock()
	n, d, outside := s.n, s.stopped, s.outside
	s.mu.Unlock()
	if outside > 0 {
		if _, err := fmt.Fprintf(w, "continued %dx after a stop from outside (SIGSTOP): the terminal taken back and the dashboard redrawn\n", outside); err != nil {
			return err
		}
	}
	if n == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "suspended %dx, %.1fs in all: the probe read it as Loop lateness (its max, and the corrected p99 of the size in force)\n", n, d.Seconds())
	return err
}

// termGate decides who ends the program while a suspension has the
// terminal. Bubble Tea's graceful quit draws a last frame as it stops,
// whatever the terminal shows: with the terminal released (the alternate
// screen left, the shell's screen back) that frame lands on the normal
// screen and the summary is printed over it. So from the moment a
// suspension takes the terminal until the dashboard is drawn again, every
// quit is held and left to the Suspender, which ends the program without
// a frame; and a quit already let through keeps a suspension from
// starting. Its methods are safe for concurrent use and never block on
// the program.
type termGate struct {
	mu       sync.Mutex
	released bool // a suspension has the terminal
	through  bool // a quit went through: the program is stopping
	heldQuit bool // a quit came while released: the Suspender ends the run
}

// release takes the terminal for a suspension; false when the program is
// ending (a quit went through, or one is held), and then nothing changes.
func (g *termGate) release() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.through || g.heldQuit {
		return false
	}
	g.released = true
	return true
}

// quit is the word on a quit: true lets it through (the dashboard holds
// the terminal; Bubble Tea ends with its last frame on the alternate
// screen), false holds it for the Suspender (the terminal is released).
func (g *termGate) quit() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.released {
		g.heldQuit = true
		return false
	}
	g.through = true
	return true
}

// stopping reports whether a quit went through: the program is ending.
func (g *termGate) stopping() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.through
}

// held reports whether a quit is held for the Suspender.
func (g *termGate) held() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.heldQuit
}

// reclaim ends a suspension: it hands the terminal back to the dashboard
// (quits go through again) unless stop (a stop the Suspender saw) is true
// or a quit is held, and then reports true: the Suspender must end the
// program, the gate still released so that no quit goes through.
func (g *termGate) reclaim(stop bool) (end bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if stop || g.heldQuit {
		return true
	}
	g.released = false
	return false
}
