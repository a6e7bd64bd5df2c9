package peer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// StartTicks is when process pid started: field 22 of /proc/PID/stat,
// clock ticks after boot. A pid and its StartTicks name one process even
// after the pid is reused. The error wraps os.ErrNotExist when no
// process has that pid, or only a dead one does (state Z or X: it exited
// and its parent has not reaped it yet; its sockets are gone).
func StartTicks(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the command", pid, len(f))
	}
	if f[0] == "Z" || f[0] == "X" { // field 3, the state: dead
		return 0, fmt.Errorf("/proc/%d/stat: the process has exited: %w", pid, os.ErrNotExist)
	}
	return strconv.ParseUint(f[19], 10, 64) // field 22; f[0] is field 3
}

// HoldsListener returns nil when process p holds every socket listening
// on addr (a loopback TCP address: the address itself, or the wildcard of
// its family) and p still is the process that started at p.Start; else
// an error wrapping ErrNotHeld. Only the user's own processes can be
// named (another's descriptors cannot be read).
func HoldsListener(p Process, addr *net.TCPAddr) error {
	want, err := listeners(addr)
	if err != nil {
		return err
	}
	if len(want) == 0 {
		return fmt.Errorf("%w: nothing listens on %s", ErrNotHeld, addr)
	}
	dir := "/proc/" + strconv.Itoa(p.PID) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%w: pid %d: its descriptors cannot be read (not a process of this user?)", ErrNotHeld, p.PID)
	}
	held := map[string]bool{}
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil {
			if in, ok := strings.CutPrefix(l, "socket:["); ok {
				held[strings.TrimSuffix(in, "]")] = true
			}
		}
	}
	for _, in := range want {
		if !held[in] {
			return fmt.Errorf("%w: pid %d does not hold the socket listening on %s", ErrNotHeld, p.PID, addr)
		}
	}
	if st, err := StartTicks(p.PID); err != nil || st != p.Start {
		return fmt.Errorf("%w: pid %d is another process now", ErrNotHeld, p.PID)
	}
	return nil
}

// listeners are the inodes of the sockets listening on addr's port at
// addr's IP or the wildcard, from /proc/net/tcp and /proc/net/tcp6.
func listeners(addr *net.TCPAddr) ([]string, error) {
	var inodes []string
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if os.IsNotExist(err) {
			continue // no IPv6
		}
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 || fs[3] != "0A" { // TCP_LISTEN
				continue
			}
			ip, port, ok := parseAddr(fs[1])
			if ok && port == addr.Port && (ip.Equal(addr.IP) || ip.IsUnspecified() && (ip.To4() == nil || addr.IP.To4() != nil)) {
				inodes = append(inodes, fs[9])
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return inodes, nil
}

// parseAddr reads a /proc/net/tcp address: the IP as 32-bit words in
// host order, then the port, in hex.
func parseAddr(s string) (net.IP, int, bool) {
	h, p, ok := strings.Cut(s, ":")
	raw, err := hex.DecodeString(h)
	if !ok || err != nil || (len(raw) != 4 && len(raw) != 16) {
		return nil, 0, false
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	port, err := strconv.ParseUint(p, 16, 16)
	return ip, int(port), err == nil
}

// ReadToken reads the token in the file at path, or returns an error
// wrapping ErrTokenFile (or os.ErrNotExist when there is none). It reads
// only a regular file, not a link (the name itself is not a symbolic
// link and the file has one name), the user's own, mode 0600, of at most
// MaxTokenBytes: opened without following a link and without blocking,
// then checked on the open file. The token is the file's bytes, spaces
// trimmed: letters, digits and -._~+/= only.
func ReadToken(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%w: %s is a %v, not a regular file", ErrTokenFile, path, fi.Mode().Type())
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrTokenFile, path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrTokenFile, path, err)
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return "", fmt.Errorf("%w: %s is not a regular file", ErrTokenFile, path)
	case st.Nlink != 1:
		return "", fmt.Errorf("%w: %s has %d names (a hard link)", ErrTokenFile, path, st.Nlink)
	case int(st.Uid) != os.Getuid():
		return "", fmt.Errorf("%w: %s is not this user's (uid %d)", ErrTokenFile, path, st.Uid)
	case st.Mode&0o7777 != 0o600:
		return "", fmt.Errorf("%w: %s has mode %04o, not 0600", ErrTokenFile, path, st.Mode&0o7777)
	case st.Size > MaxTokenBytes:
		return "", fmt.Errorf("%w: %s has %d bytes, over %d", ErrTokenFile, path, st.Size, MaxTokenBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxTokenBytes+1))
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrTokenFile, path, err)
	}
	if b = bytes.TrimSpace(b); !ValidToken(b) {
		return "", fmt.Errorf("%w: %s does not hold a token", ErrTokenFile, path)
	}
	return string(b), nil
}

// Alive reports whether p is running (its pid started at p.Start); known
// is false when that cannot be told.
func Alive(p Process) (alive, known bool) {
	st, err := StartTicks(p.PID)
	if err != nil {
		return false, errors.Is(err, os.ErrNotExist)
	}
	return st == p.Start, true
}

// Mine reports whether fi (from os.Lstat) is a regular file of this user.
func Mine(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fi.Mode().IsRegular() && int(st.Uid) == os.Getuid()
}

// UID is the user process pid runs as: its real, effective, saved and
// filesystem uids (the Uid line of /proc/PID/status), which must be one.
// The error wraps os.ErrNotExist when no process has that pid.
func UID(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	return parseUID(b)
}

// parseUID reads the uid of a /proc/PID/status: its Uid line's four
// uids, all equal; else an error.
func parseUID(status []byte) (int, error) {
	for _, l := range strings.Split(string(status), "\n") {
		rest, ok := strings.CutPrefix(l, "Uid:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 4 {
			return 0, fmt.Errorf("status: Uid line with %d fields, want 4", len(f))
		}
		for _, s := range f[1:] {
			if s != f[0] {
				return 0, fmt.Errorf("status: uids %s differ", strings.Join(f, " "))
			}
		}
		return strconv.Atoi(f[0])
	}
	return 0, errors.New("status: no Uid line")
}

// ReadTokenOf reads the token file at path for process p (ReadToken):
// only when p runs as this user (UID) and still is the process that
// started at p.Start; else an error wrapping ErrTokenFile. The file must
// be this user's too (ReadToken), so p's user and the file's are attach's.
func ReadTokenOf(p Process, path string) (string, error) {
	uid, err := UID(p.PID)
	if err != nil {
		return "", fmt.Errorf("%w: pid %d: %v", ErrTokenFile, p.PID, err)
	}
	if uid != os.Getuid() {
		return "", fmt.Errorf("%w: pid %d runs as uid %d, not this user (uid %d)", ErrTokenFile, p.PID, uid, os.Getuid())
	}
	tok, err := ReadToken(path)
	if err != nil {
		return "", err
	}
	if st, err := StartTicks(p.PID); err != nil || st != p.Start {
		return "", fmt.Errorf("%w: pid %d is another process now", ErrTokenFile, p.PID)
	}
	return tok, nil
}
