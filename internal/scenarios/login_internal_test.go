package scenarios

import (
	"bytes"
	"context"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

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
	if a, b := hashLogin(context.Background(), 1, 1000), hashLogin(context.Background(), 2, 1000); len(a) != 64 || bytes.Equal(a, b) {
		t.Error("users share a key")
	}
}

// pbkdf2Key, the one login hashes with, gives crypto/pbkdf2's keys (short
// and long keys, one and several blocks, one and 3000 iterations), and
// gives up at once on a done context: a 10^9-iteration key returns nil.
func TestPBKDF2MatchesTheLibrary(t *testing.T) {
	for _, c := range []struct{ iter, keyLen int }{{1, 64}, {2, 64}, {1023, 64}, {1024, 64}, {3000, 64}, {3000, 20}, {5, 130}} {
		want, err := pbkdf2.Key(sha512.New, "pw", []byte("salty"), c.iter, c.keyLen)
		if err != nil {
			t.Fatal(err)
		}
		if got := pbkdf2Key(context.Background(), sha512.New, "pw", []byte("salty"), c.iter, c.keyLen); !bytes.Equal(got, want) {
			t.Errorf("%d iterations, %d bytes: %x, want %x", c.iter, c.keyLen, got, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := pbkdf2Key(ctx, sha512.New, "pw", []byte("salty"), 1e9, 64); got != nil {
		t.Errorf("done context: %x, want nil", got)
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
	testkit.WaitFor(t, "a hash and a read", 0, func() bool { return l.hashes.Load() > 0 && l.reads.Load() > 0 })
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
