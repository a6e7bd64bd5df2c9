package scenarios

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/hist"
)

// The login scenario (seed 000 s6, docs/seeds.md): Node runs crypto.pbkdf2
// and fs calls on libuv's pool of 4 threads, so a burst of logins holds up
// file reads. OWASP's PBKDF2-HMAC-SHA512 figure is 220,000 iterations; the
// seed took 38 ms a hash in Node (OpenSSL); Go's crypto/pbkdf2 takes
// ~150-250 ms on one of 2 EPYC cores, so a burst of 40 keeps 2 cores busy
// for seconds at scale 1.
const (
	DefaultLoginBurstGap  = 4 * time.Second
	DefaultLoginReadEvery = 20 * time.Millisecond
	// LoginWorkers is the pool size login starts with when none is given:
	// libuv's default UV_THREADPOOL_SIZE.
	LoginWorkers = 4

	loginIterations    = 220_000
	loginMinIterations = 1000
	loginKeyLen        = 64
	loginFileSize      = 64 << 10
	loginFirstBurst    = time.Second // first burst this long after Start
	loginUsers         = 4           // distinct password/salt pairs
	loginStartBurst    = 2           // index in loginBursts: 40
)

// loginBursts are the burst sizes [ and ] step through.
var loginBursts = [...]int{10, 20, 40, 80}

// pbkdf2Vector is PBKDF2-HMAC-SHA512("password", "salt", 4096 iterations,
// 64 bytes), the widely published test vector: Start checks pbkdf2Key
// against it before trusting it to make the expected keys.
const pbkdf2Vector = "d197b1b33db0143e018b12f3d1d1479e6cdebdcc97c5c0f87f6902e072f457b5143f30602641b3d55cd335988cb36b84376060ecd532e039b742a239434af2d5"

// loginUser is one password and salt.
func loginUser(i int) (password string, salt []byte) {
	return fmt.Sprintf("correct horse battery staple %d", i), []byte(fmt.Sprintf("offtop-salt-%04d", i))
}

// hashLogin is the hash task's work: user i's key, or nil once ctx is done
// (checked every pbkdf2Check iterations, so Stop cuts a hash short within
// about a millisecond whatever the scale).
func hashLogin(ctx context.Context, i, iters int) []byte {
	pw, salt := loginUser(i)
	return pbkdf2Key(ctx, sha512.New, pw, salt, iters, loginKeyLen)
}

// pbkdf2Check is how many PBKDF2 iterations run between two looks at the
// context: 1024 HMAC-SHA512s, about a millisecond.
const pbkdf2Check = 1024

// pbkdf2Key is PBKDF2 (RFC 8018 section 5.2) with HMAC over h, the key
// crypto/pbkdf2.Key gives (TestPBKDF2MatchesTheLibrary), but one that gives
// up: it returns nil once ctx is done. crypto/pbkdf2 cannot be stopped, and
// at --scale 1000 one key is 220 million iterations, minutes of CPU.
func pbkdf2Key(ctx context.Context, h func() hash.Hash, password string, salt []byte, iter, keyLen int) []byte {
	prf := hmac.New(h, []byte(password))
	hLen := prf.Size()
	blocks := (keyLen + hLen - 1) / hLen
	dk := make([]byte, 0, blocks*hLen)
	var idx [4]byte
	u := make([]byte, 0, hLen)
	done := ctx.Done()
	for block := 1; block <= blocks; block++ {
		prf.Reset()
		prf.Write(salt)
		binary.BigEndian.PutUint32(idx[:], uint32(block))
		prf.Write(idx[:])
		dk = prf.Sum(dk)
		t := dk[len(dk)-hLen:]
		u = append(u[:0], t...)
		for n := 2; n <= iter; n++ {
			if n%pbkdf2Check == 0 {
				select {
				case <-done:
					return nil
				default:
				}
			}
			prf.Reset()
			prf.Write(u)
			u = prf.Sum(u[:0])
			for x := range u {
				t[x] ^= u[x]
			}
		}
	}
	return dk[:keyLen]
}

type login struct {
	// base's context is done once Stop begins: the drivers stop, the
	// expected keys and every hash in progress give up.
	base
	gap, readEvery time.Duration
	burstIdx       atomic.Int64

	env      Env
	iters    int
	path     string
	fileCRC  uint32
	vectorOK bool
	want     [loginUsers][]byte // expected keys; written by the burst driver before its first burst

	pending sync.WaitGroup // tasks submitted whose done has not run

	hashLat, readLat       *hist.Recorder
	readBurst, readBetween *hist.Recorder
	cpu                    cpuMeter
	// submitMu makes a burst's submission one step as a read sees it: a
	// read submitted before the burst is ahead of all its hashes in the
	// queue and counts as between bursts; one submitted after, as in one.
	submitMu sync.Mutex
	// inBurst counts the tasks of the burst in progress not yet done: its
	// hashes, and the reads submitted while it was in progress (they queue
	// behind the hashes; until that backlog drains, a new read still waits
	// for the burst). A burst is in progress while it is above 0.
	inBurst             atomic.Int64
	lastBurst           atomic.Int64 // wall time of the last finished burst, ns
	hashes, reads       atomic.Int64
	wrongHash, badReads atomic.Int64
	rejected            atomic.Int64
}

func newLogin(c Config) *login {
	l := &login{gap: c.LoginBurstGap, readEvery: c.LoginReadEvery}
	if l.gap <= 0 {
		l.gap = DefaultLoginBurstGap
	}
	if l.readEvery <= 0 {
		l.readEvery = DefaultLoginReadEvery
	}
	l.burstIdx.Store(loginStartBurst)
	return l
}

func (l *login) Name() string { return "login" }

func (l *login) Look() string {
	return "file reads queue behind hashes on a shared pool: read p99 in bursts vs between"
}

func (l *login) Start(env Env) error {
	l.env = env
	l.iters = max(int(float64(loginIterations)*env.Scale), loginMinIterations)
	v := pbkdf2Key(context.Background(), sha512.New, "password", []byte("salt"), 4096, loginKeyLen)
	l.vectorOK = hex.EncodeToString(v) == pbkdf2Vector

	content := make([]byte, loginFileSize)
	r := rand.New(rand.NewPCG(6, 220_000))
	for i := range content {
		content[i] = byte(r.Uint32())
	}
	f, err := os.CreateTemp("", "offtop-login-*.dat")
	if err != nil {
		return fmt.Errorf("login: temp file: %w", err)
	}
	l.path = f.Name()
	_, werr := f.Write(content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(l.path)
		return fmt.Errorf("login: write %s: %w", l.path, werr)
	}
	l.fileCRC = crc32.ChecksumIEEE(content)

	l.hashLat = hist.NewRecorder(env.Window, nil)
	l.readLat = hist.NewRecorder(env.Window, nil)
	l.readBurst = hist.NewRecorder(env.Window, nil)
	l.readBetween = hist.NewRecorder(env.Window, nil)
	l.begin()
	l.goSafe(l.bursts)
	l.goSafe(l.reader)
	return nil
}

// bursts computes the expected keys, then sends a burst of hashes, waits
// for all of them, rests for the gap, and again. Bursts never overlap: on
// a small machine at scale 1 a burst takes longer than the gap.
func (l *login) bursts() {
	t0 := l.now()
	for i := range l.want {
		if l.stopped() {
			return
		}
		l.want[i] = hashLogin(l.ctx, i, l.iters) // nil if stopped: then stopped() below
	}
	if !l.sleep(loginFirstBurst - l.since(t0)) {
		return
	}
	for l.waitRunning() {
		n := loginBursts[l.burstIdx.Load()]
		start := time.Now()
		left := make(chan struct{})
		var remaining atomic.Int64
		remaining.Store(int64(n))
		finish := func() {
			l.inBurst.Add(-1)
			if remaining.Add(-1) == 0 {
				close(left)
			}
		}
		l.submitMu.Lock()
		l.inBurst.Add(int64(n))
		for i := range n {
			l.hash(i%loginUsers, finish)
		}
		l.submitMu.Unlock()
		select {
		case <-l.done():
			return
		case <-left:
		}
		l.lastBurst.Store(int64(time.Since(start)))
		if !l.sleep(l.gap) {
			return
		}
	}
}

// hash submits one login's hash; finish runs once it is done (or refused).
func (l *login) hash(user int, finish func()) {
	submitted := time.Now()
	var dk []byte // written by the task, read by done on the same goroutine
	l.pending.Add(1)
	err := l.env.Submit(func() {
		if l.stopped() {
			return // do not hash for nobody after Stop
		}
		l.cpu.run(func() { dk = hashLogin(l.ctx, user, l.iters) })
	}, func(err error) {
		defer l.pending.Done()
		defer finish()
		if err != nil || dk == nil {
			if !l.stopped() {
				l.wrongHash.Add(1)
			}
			return
		}
		l.hashLat.Record(int64(time.Since(submitted)))
		if !bytes.Equal(dk, l.want[user]) {
			l.wrongHash.Add(1)
		}
		l.hashes.Add(1)
	})
	if err != nil {
		l.pending.Done()
		l.rejected.Add(1)
		finish()
	}
}

// reader submits a file read every readEvery, open-loop: due times are
// t0 + k*readEvery whatever the reads before did.
func (l *login) reader() { l.every(l.readEvery, nil, l.read) }

// read submits one read of the file as a pool task and records how long
// it took from submit to done, split by whether a burst was in progress
// at submit (see inBurst).
func (l *login) read() {
	var ok bool // written by the task, read by done on the same goroutine
	l.pending.Add(1)
	l.submitMu.Lock()
	defer l.submitMu.Unlock()
	submitted := time.Now()
	during := l.inBurst.Load() > 0
	if during {
		l.inBurst.Add(1)
	}
	err := l.env.Submit(func() {
		if l.stopped() {
			ok = true // the file may be gone; nothing was asked of it
			return
		}
		b, err := os.ReadFile(l.path)
		ok = err == nil && len(b) == loginFileSize && crc32.ChecksumIEEE(b) == l.fileCRC
	}, func(err error) {
		defer l.pending.Done()
		if during {
			defer l.inBurst.Add(-1)
		}
		if err != nil || !ok {
			if !l.stopped() {
				l.badReads.Add(1)
			}
			return
		}
		d := int64(time.Since(submitted))
		l.readLat.Record(d)
		l.env.ObserveHeadline(time.Duration(d))
		if during {
			l.readBurst.Record(d)
		} else {
			l.readBetween.Record(d)
		}
		l.reads.Add(1)
	})
	if err != nil {
		if during {
			l.inBurst.Add(-1)
		}
		l.pending.Done()
		l.rejected.Add(1)
	}
}

// Stop stops both drivers, waits for every task submitted (tasks not yet
// started skip their work, hashes in progress give up within about a
// millisecond) and removes the file. Safe twice.
func (l *login) Stop() {
	l.halt(func() {
		l.pending.Wait()
		os.Remove(l.path)
	})
}

func (l *login) Status() Status {
	hw, rw := l.hashLat.Window(), l.readLat.Window()
	rb, rq := l.readBurst.Total(), l.readBetween.Total()
	rs := []Readout{
		Millis("hash_p99_ms", "hash p99", hw.P99, hw.Count > 0),
		Millis("read_p99_ms", "read p99", rw.P99, rw.Count > 0),
		Millis("read_burst_p99_ms", "read p99 in bursts", rb.P99, rb.Count > 0),
		Millis("read_between_p99_ms", "read p99 between", rq.P99, rq.Count > 0),
		Millis("burst_ms", "last burst", time.Duration(l.lastBurst.Load()), l.lastBurst.Load() > 0),
		Num("hashes", "hashes", float64(l.hashes.Load())),
		Num("reads", "reads", float64(l.reads.Load())),
		l.cpu.readout("cpu_per_hash_ms", "CPU/hash"),
		Num("rejected", "rejected", float64(l.rejected.Load())),
	}
	rs = append(rs, answer(l.hashes.Load() > 0 && l.reads.Load() > 0,
		l.vectorOK && l.wrongHash.Load() == 0 && l.badReads.Load() == 0))
	return Status{
		Load: fmt.Sprintf("bursts of %d hashes x %d iterations, %v apart; a 64KB read every %v",
			loginBursts[l.burstIdx.Load()], l.iters, l.gap, l.readEvery),
		Readouts: rs,
	}
}

// SetLoad steps the burst size through 10, 20, 40, 80.
func (l *login) SetLoad(delta int) {
	i := min(max(l.burstIdx.Load()+int64(clampSteps(delta, len(loginBursts))), 0), int64(len(loginBursts)-1))
	l.burstIdx.Store(i)
}

// Reset clears the latency figures (the in-burst and between split counts
// since the last reset).
func (l *login) Reset() {
	l.hashLat.Reset()
	l.readLat.Reset()
	l.readBurst.Reset()
	l.readBetween.Reset()
}
