package jsonenc

import (
	"encoding/json"
	"math"
	"testing"
)

// marshal is encoding/json's bytes for v.
func marshal(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkSame fails unless Float and String write what encoding/json does
// for f and s.
func checkSame(t testing.TB, s string, f float64) {
	t.Helper()
	if got, want := string(String(nil, s)), marshal(t, s); got != want {
		t.Errorf("String(%q) = %s, encoding/json %s", s, got, want)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if got := string(Float(nil, f)); got != Null {
			t.Errorf("Float(%v) = %s, want null", f, got)
		}
		return
	}
	if got, want := string(Float(nil, f)), marshal(t, f); got != want {
		t.Errorf("Float(%v) = %s, encoding/json %s", f, got, want)
	}
}

func TestSameAsEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", `q"uote\back`, "<a & b>", "\b\f\n\r\t\x00\x01\x1f\x7f",
		"\u2028\u2029", "é漢字🙂", "\xff\xfe bad", "a\xc3", "\u0080\u009f"}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.001, 1e-6, 9.99e-7, 1e-7, 1.5e-9,
		123456.789, 1e20, 1e21, -1e21, 1.7976931348623157e308, 5e-324, math.NaN(), math.Inf(1), math.Inf(-1)}
	for i := range max(len(strs), len(floats)) {
		checkSame(t, strs[i%len(strs)], floats[i%len(floats)])
	}
}

func TestKey(t *testing.T) {
	b := append([]byte(nil), '{')
	b = Int(Key(b, "a"), 1)
	b = Bool(Key(b, "b<"), true)
	b = append(Key(b, "c"), '{')
	b = append(Float(Key(b, "d"), 0.5), '}', '}')
	want := `{"a":1,"b\u003c":true,"c":{"d":0.5}}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// FuzzSameAsEncodingJSON holds String and Float to encoding/json on any
// string and float64.
func FuzzSameAsEncodingJSON(f *testing.F) {
	f.Add("<&>\u2028\xff", 1e-7)
	f.Add("", 1e21)
	f.Fuzz(func(t *testing.T, s string, v float64) { checkSame(t, s, v) })
}
