package session

import (
	"encoding/json"
	"fmt"
)

// actionNames are the ActionKinds as they travel in JSON (the agent's
// action endpoint): {"kind":"set_workers","n":4}.
var actionNames = map[ActionKind]string{
	SetWorkers:        "set_workers",
	AddWorkers:        "add_workers",
	Load:              "load",
	TogglePause:       "pause",
	Reset:             "reset",
	NextScenario:      "next_scenario",
	AddGOMAXPROCS:     "add_gomaxprocs",
	DefaultGOMAXPROCS: "default_gomaxprocs",
	TogglePerTask:     "per_task",
	Turn:              "turn",
	TogglePriority:    "priority",
	AutoSize:          "auto_size",
	CancelAutoSize:    "cancel_auto_size",
}

// String is k's JSON name, or "kind N" for an unknown one.
func (k ActionKind) String() string {
	if n, ok := actionNames[k]; ok {
		return n
	}
	return fmt.Sprintf("kind %d", int(k))
}

type actionJSON struct {
	Kind string `json:"kind"`
	N    int    `json:"n"`
	Key  string `json:"key,omitempty"` // Turn's knob
}

// MarshalJSON encodes a as {"kind":NAME,"n":N} (with "key" for Turn).
func (a Action) MarshalJSON() ([]byte, error) {
	n, ok := actionNames[a.Kind]
	if !ok {
		return nil, fmt.Errorf("%w: kind %d", ErrAction, int(a.Kind))
	}
	return json.Marshal(actionJSON{Kind: n, N: a.N, Key: a.Key})
}

// takesN are the kinds whose N is their argument: their JSON must give
// "n" (0 is a size, so a missing one is not read as 0).
var takesN = map[ActionKind]bool{SetWorkers: true, AddWorkers: true, Load: true, AddGOMAXPROCS: true, Turn: true}

// UnmarshalJSON decodes {"kind":NAME,"n":N}; an unknown kind is an error
// wrapping ErrAction, a kind that takes N without "n" an error.
func (a *Action) UnmarshalJSON(b []byte) error {
	var j struct {
		actionJSON
		N *int `json:"n"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	for k, n := range actionNames {
		if n != j.Kind {
			continue
		}
		*a = Action{Kind: k, Key: j.Key}
		switch {
		case j.N != nil:
			a.N = *j.N
		case takesN[k]:
			return fmt.Errorf("%s without n", j.Kind)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown kind %q", ErrAction, j.Kind)
}
