package scenarios

import (
	"bytes"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// crypto/pbkdf2 gives the published PBKDF2-HMAC-SHA512 vectors.
func TestPBKDF2Vectors(t *testing.T) {
	for _, c := range []struct {
		iter int
		want string
	}{
		{1, "867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce"},
		{4096, pbkdf2Vector},
	} {
		k, err := pbkdf2.Key(sha512.New, "password", []byte("salt"), c.iter, 64)
		if err != nil || hex.EncodeToString(k) != c.want {
			t.Errorf("%d iterations: %x, %v", c.iter, k, err)
		}
	}
	if a, b := hashLogin(1, 1000), hashLogin(2, 1000); len(a) != 64 || bytes.Equal(a, b) {
		t.Error("users share a key")
	}
}

func TestLoginLoadSteps(t *testing.T) {
	l := newLogin(Config{})
	for _, c := range []struct{ d, want int }{{1, 80}, {1, 80}, {-1, 40}, {-2, 10}, {-1, 10}, {1, 20}} {
		l.SetLoad(c.d)
		if got := loginBursts[l.burstIdx.Load()]; got != c.want {
			t.Errorf("after %+d: burst %d, want %d", c.d, got, c.want)
		}
	}
}

// Stop waits for the tasks and removes the temporary file; twice is safe.
func TestLoginStopRemovesFile(t *testing.T) {
	defer goleak.VerifyNone(t)
	env, p := poolEnv(t, 2)
	l := newLogin(Config{LoginBurstGap: 100 * time.Millisecond})
	if err := l.Start(env); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.path); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for l.hashes.Load() == 0 || l.reads.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no hash or no read")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r := readoutOf(l.Status(), "answer_ok"); !r.Known || r.Value != 1 {
		t.Errorf("answer_ok %+v", r)
	}
	l.Stop()
	l.Stop()
	if _, err := os.Stat(l.path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("file left: %v", err)
	}
	if c := p.Counts(); c.Running+c.Queued != 0 || c.Failed != 0 {
		t.Errorf("after Stop: %+v", c)
	}
	p.Close()
}
