package session

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// jsonDoc is the headless output's manual, whose table names every key.
const jsonDoc = "../../docs/json-lines.md"

// docKeys are the backquoted names in the first column of jsonDoc's
// field table.
func docKeys(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(jsonDoc)
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile("`([^`]+)`")
	var keys []string
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| `") || len(cells) < 3 {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			keys = append(keys, m[1])
		}
	}
	if len(keys) == 0 {
		t.Fatalf("%s: no table of fields found", jsonDoc)
	}
	return keys
}

// TestJSONDocNamesEveryKey: docs/json-lines.md's table names every key
// of a real headless line, and no key a line does not have, so the doc
// cannot fall behind the Snapshot again.
func TestJSONDocNamesEveryKey(t *testing.T) {
	_, step := stepped(t, Config{Scenario: "stall", Workers: 1})
	b, err := json.Marshal(step())
	if err != nil {
		t.Fatal(err)
	}
	var line map[string]json.RawMessage
	if err := json.Unmarshal(b, &line); err != nil {
		t.Fatal(err)
	}
	doc := docKeys(t)
	for k := range line {
		if !slices.Contains(doc, k) {
			t.Errorf("%s: the table does not name %q, a key of every line", jsonDoc, k)
		}
	}
	for _, k := range doc {
		if _, ok := line[k]; !ok {
			t.Errorf("%s: the table names %q, which no line has", jsonDoc, k)
		}
	}
}
