package agent

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/offtop/offtop/internal/peer"
)

// DefaultTokenDir is where the token file is made when Options.TokenDir
// is empty, and where attach looks for it: $XDG_RUNTIME_DIR, else
// os.TempDir().
func DefaultTokenDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return d
	}
	return os.TempDir()
}

// TokenFileName is the name of the token file of the process pid that
// started at start (field 22 of /proc/PID/stat, clock ticks after boot;
// 0 where there is no /proc): "offtop-agent-PID-START.token".
func TokenFileName(pid int, start uint64) string {
	return fmt.Sprintf("offtop-agent-%d-%d.token", pid, start)
}

// parseTokenFileName is TokenFileName's inverse; false for another name.
func parseTokenFileName(name string) (peer.Process, bool) {
	mid, ok := strings.CutPrefix(name, "offtop-agent-")
	if mid, ok = strings.CutSuffix(mid, ".token"); !ok {
		return peer.Process{}, false
	}
	p, s, ok := strings.Cut(mid, "-")
	pid, err1 := strconv.Atoi(p)
	start, err2 := strconv.ParseUint(s, 10, 64)
	return peer.Process{PID: pid, Start: start}, ok && err1 == nil && err2 == nil && pid > 0
}

// self is this process as TokenFileName names it.
func self() peer.Process {
	st, _ := peer.StartTicks(os.Getpid()) // 0 where unknown
	return peer.Process{PID: os.Getpid(), Start: st}
}

// tokens are this process's token files, by path: the agents of one
// process in one directory share one file and its token.
var tokens struct {
	mu sync.Mutex
	m  map[string]*sharedToken
}

type sharedToken struct {
	token string
	users int
}

// acquireToken returns the path and the token of this process's token
// file in dir (DefaultTokenDir when empty), making the file (mode 0600,
// created anew, never through a link) for the first agent; before that
// it removes the stale files in dir (removeStale).
func acquireToken(dir string) (path, token string, err error) {
	if dir == "" {
		dir = DefaultTokenDir()
	}
	me := self()
	path = filepath.Join(dir, TokenFileName(me.PID, me.Start))
	tokens.mu.Lock()
	defer tokens.mu.Unlock()
	if t := tokens.m[path]; t != nil {
		t.users++
		return path, t.token, nil
	}
	removeStale(dir, me)
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("agent: token: %w", err)
	}
	token = hex.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) // O_EXCL: not through a link
	if err != nil {
		return "", "", fmt.Errorf("agent: token file: %w", err)
	}
	if err = f.Chmod(0o600); err == nil { // whatever the umask
		_, err = f.WriteString(token + "\n")
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", "", fmt.Errorf("agent: token file: %w", err)
	}
	if tokens.m == nil {
		tokens.m = map[string]*sharedToken{}
	}
	tokens.m[path] = &sharedToken{token: token, users: 1}
	return path, token, nil
}

// releaseToken lets go of the token file at path; the last agent to let
// go removes it.
func releaseToken(path string) {
	tokens.mu.Lock()
	defer tokens.mu.Unlock()
	if t := tokens.m[path]; t != nil {
		if t.users--; t.users == 0 {
			delete(tokens.m, path)
			_ = os.Remove(path)
		}
	}
}

// removeStale removes the token files in dir that name a process not
// running (its pid gone, or started at another time), or this process
// (no agent of it holds one yet): the files of programs killed before
// their agent's Close. Only regular files of this user are removed; a
// file whose process cannot be told is kept.
func removeStale(dir string, me peer.Process) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		p, ok := parseTokenFileName(e.Name())
		if !ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || !peer.Mine(fi) {
			continue
		}
		if alive, known := peer.Alive(p); p == me || known && !alive {
			_ = os.Remove(path)
		}
	}
}
