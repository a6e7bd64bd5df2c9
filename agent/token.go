package agent

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
)

// writeToken makes a random token for this process in a new file only the
// user can read (0600) in dir ($XDG_RUNTIME_DIR, else os.TempDir, when
// empty) and returns the file's path and the token.
func writeToken(dir string) (path, token string, err error) {
	if dir == "" {
		dir = os.Getenv("XDG_RUNTIME_DIR")
	}
	if dir == "" {
		dir = os.TempDir()
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("agent: token: %w", err)
	}
	token = hex.EncodeToString(b)
	f, err := os.CreateTemp(dir, fmt.Sprintf("offtop-agent-%d-*.token", os.Getpid())) // mode 0600
	if err != nil {
		return "", "", fmt.Errorf("agent: token file: %w", err)
	}
	if err := f.Chmod(0o600); err == nil {
		_, err = f.WriteString(token + "\n")
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", "", fmt.Errorf("agent: token file: %w", err)
	}
	return f.Name(), token, nil
}
