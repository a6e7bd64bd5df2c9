package scenarios

import "testing"

// TestItemsRoundTripThroughGob: the clone is a real one: what the task
// decodes is the objects, field for field, and sums to the same price.
func TestItemsRoundTripThroughGob(t *testing.T) {
	its := makeItems(5000)
	p, err := encodeItems(its)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeItems(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(its) {
		t.Fatalf("decoded %d objects, want %d", len(got), len(its))
	}
	for i := range its {
		if got[i] != its[i] {
			t.Fatalf("object %d: %+v, want %+v", i, got[i], its[i])
		}
	}
	if sumPrices(got) != sumPrices(its) {
		t.Error("sums differ after the round trip")
	}
	if &got[0] == &its[0] {
		t.Error("decoded slice shares memory with the original")
	}
}

func TestParsePayload(t *testing.T) {
	for in, want := range map[string]string{"": PayloadBytes, "bytes": PayloadBytes, "objects": PayloadObjects} {
		if got, err := ParsePayload(in); err != nil || got != want {
			t.Errorf("ParsePayload(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParsePayload("json"); err == nil {
		t.Error("ParsePayload(json): no error")
	}
}

// TestObjectsWithinTheirRange: Scale multiplies the million objects within
// 1000..4M, so no scale runs the process out of memory.
func TestObjectsWithinTheirRange(t *testing.T) {
	for scale, want := range map[float64]int{0.0001: 1000, 0.5: 500_000, 1: 1_000_000, 4: 4_000_000, 10: 4_000_000, 1000: 4_000_000} {
		if got := objectsAt(scale); got != want {
			t.Errorf("objectsAt(%g) = %d, want %d", scale, got, want)
		}
	}
}
