package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/fleet"
	"github.com/offtop/offtop/internal/session"
)

// FleetSource is what the fleet screen reads and drives (fleet.Fleet):
// one row per process, each process's own Source for its dashboard, and
// an action to one process only.
type FleetSource interface {
	Len() int
	Rows() []fleet.Row
	Member(i int) session.Source
	Post(i int, a session.Action) <-chan error
}

// Messages of the fleet screen.
type (
	// rowsMsg carries the rows read in a Cmd, numbered as rowFetcher
	// read them.
	rowsMsg struct {
		rows []fleet.Row
		seq  uint64
	}
	// fleetAppliedMsg is the outcome of an action posted to process i.
	fleetAppliedMsg struct {
		i   int
		err error
	}
	// memberMsg is a message of process i's dashboard (its Cmds'), so it
	// reaches that dashboard whichever is open when it comes.
	memberMsg struct {
		i   int
		msg tea.Msg
	}
)

// rowFetcher reads the rows one at a time and numbers them, as fetcher
// does Snapshots.
type rowFetcher struct {
	src FleetSource
	numbered[[]fleet.Row]
}

func (f *rowFetcher) read() rowsMsg {
	rows, seq := f.numbered.read(f.src.Rows)
	return rowsMsg{rows: rows, seq: seq}
}

// FleetModel is the fleet screen (offtop attach ADDR ADDR...): one row per
// process, sorted by a key (s); enter opens the selected process's own
// dashboard (a Model of its own, kept while closed, so its ? and detail
// stay as left), esc comes back; the resize keys post to the selected
// process only. Make it with NewFleet.
type FleetModel struct {
	f       *rowFetcher
	rows    []fleet.Row // in the order given
	seq     uint64
	sort    fleet.SortKey
	sel     int  // the selected process's Index
	open    bool // its dashboard is on screen
	dash    []Model
	width   int
	height  int
	errLine string // the last action's refusal, "" once one succeeds
}

// NewFleet is the fleet screen of src, sorted by key; it reads the rows
// at Init and at each Sampled, as Model does its Snapshot.
func NewFleet(src FleetSource, key fleet.SortKey) FleetModel {
	m := FleetModel{f: &rowFetcher{src: src}, sort: key, width: defaultWidth, height: defaultHeight}
	for i := range src.Len() {
		m.dash = append(m.dash, New(src.Member(i)))
	}
	return m
}

func (m FleetModel) Init() tea.Cmd { return safe(m.rowsCmd()) }

func (m FleetModel) rowsCmd() tea.Cmd {
	f := m.f
	return func() tea.Msg { return f.read() }
}

// tag makes c's messages process i's (memberMsg); quit stays quit.
func tag(i int, c tea.Cmd) tea.Cmd {
	if c == nil {
		return nil
	}
	return func() tea.Msg {
		switch msg := c().(type) {
		case nil:
			return nil
		case tea.QuitMsg:
			return msg
		case tea.BatchMsg:
			out := make(tea.BatchMsg, len(msg))
			for j, c := range msg {
				out[j] = tag(i, c)
			}
			return out
		default:
			return memberMsg{i: i, msg: msg}
		}
	}
}

// Update handles the rows, keys, resizes, and the open dashboard's
// messages; a panic goes to crash's handler as Model's does.
func (m FleetModel) Update(msg tea.Msg) (next tea.Model, cmd tea.Cmd) {
	next = m
	defer crash.Recover()
	next, cmd = m.update(msg)
	return next, safe(cmd)
}

// member passes msg to process i's dashboard.
func (m FleetModel) member(i int, msg tea.Msg) (FleetModel, tea.Cmd) {
	next, cmd := m.dash[i].update(msg)
	m.dash = append([]Model(nil), m.dash...) // the copies of m keep theirs
	m.dash[i] = next.(Model)
	return m, tag(i, cmd)
}

func (m FleetModel) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case sampledMsg:
		if m.open {
			m, cmd := m.member(m.sel, msg)
			return m, tea.Batch(m.rowsCmd(), cmd)
		}
		return m, m.rowsCmd()
	case rowsMsg:
		if msg.seq > m.seq {
			m.rows, m.seq = msg.rows, msg.seq
		}
		return m, nil
	case memberMsg:
		return m.member(msg.i, msg.msg)
	case fleetAppliedMsg:
		m.errLine = ""
		if msg.err != nil {
			m.errLine = fmt.Sprintf("%s: %v", m.f.src.Member(msg.i).Snapshot().Remote, msg.err)
		}
		return m, m.rowsCmd()
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.dash = append([]Model(nil), m.dash...)
		for i := range m.dash {
			m.dash[i].width, m.dash[i].height = msg.Width, max(msg.Height-1, 0) // the last line is the fleet's
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return m, nil
}

// key handles a key: on the open dashboard, esc (its ? screen closed)
// comes back, any other key is the dashboard's; on the fleet screen, its
// own keys, quit, and the actions, posted to the selected process.
func (m FleetModel) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	s := k.String()
	if m.open {
		if d, ok := DefaultKeyMap.lookup(s, false); ok && d.use == useBack && !m.dash[m.sel].view.help {
			m.open = false
			return m, m.rowsCmd()
		}
		return m.member(m.sel, k)
	}
	d, ok := DefaultKeyMap.fleetLookup(s)
	if !ok || len(m.rows) == 0 {
		if ok && d.use == useQuit {
			return m, tea.Quit
		}
		return m, nil
	}
	switch d.use {
	case useSelectUp, useSelectDown:
		rows := m.sorted()
		at := m.at(rows)
		if d.use == useSelectUp {
			at = max(at-1, 0)
		} else {
			at = min(at+1, len(rows)-1)
		}
		m.sel = rows[at].Index
	case useOpen:
		m.open = true
		return m, tag(m.sel, m.dash[m.sel].Init())
	case useSort:
		m.sort = m.sort.Next()
	case useQuit:
		return m, tea.Quit
	case useAction:
		i, res := m.sel, m.f.src.Post(m.sel, d.act(s))
		return m, func() tea.Msg { return fleetAppliedMsg{i: i, err: <-res} }
	}
	return m, nil
}

// sorted is the rows in the screen's order.
func (m FleetModel) sorted() []fleet.Row {
	rows := append([]fleet.Row(nil), m.rows...)
	fleet.Sort(rows, m.sort)
	return rows
}

// at is the selected row's place in rows (0 when it is not there).
func (m FleetModel) at(rows []fleet.Row) int {
	for i, r := range rows {
		if r.Index == m.sel {
			return i
		}
	}
	return 0
}

// Selected is the selected process's place in the order given, and
// whether its dashboard is open.
func (m FleetModel) Selected() (int, bool) { return m.sel, m.open }

// View is the open dashboard with the fleet's line under it, or the
// fleet's rows.
func (m FleetModel) View() (v tea.View) {
	v.AltScreen = true
	defer crash.Recover()
	if m.open {
		d := m.dash[m.sel]
		body := d.content()
		if d.width < MinWidth || d.height < MinHeight { // the terminal's size, the fleet's line counted
			body = cut(fmt.Sprintf("offtop needs %dx%d (now %dx%d)", MinWidth, MinHeight+1, m.width, m.height), max(m.width, 0))
		}
		v.SetContent(body + "\n" + fit(fleetLine(m.rows, m.sel, d.width), d.width))
		return v
	}
	v.SetContent(trimBlanks(fleetScreen(m.sorted(), m.sel, m.sort, m.errLine, m.width, m.height)))
	return v
}

// fleetLine is the line under process sel's open dashboard: its address,
// how to come back, and how the fleet is.
func fleetLine(rows []fleet.Row, sel, w int) string {
	addr := ""
	for _, r := range rows {
		if r.Index == sel {
			addr = r.Addr + "  "
		}
	}
	return cut(theme.Faint.Render(addr+"esc back to the fleet: "+fleetCount(rows)), w)
}

// fleetCount says how many processes are live and how many are not.
func fleetCount(rows []fleet.Row) string {
	live := 0
	for _, r := range rows {
		if r.Live() {
			live++
		}
	}
	s := fmt.Sprintf("%d processes, %d live", len(rows), live)
	if gone := len(rows) - live; gone > 0 {
		s += fmt.Sprintf(", %d disconnected", gone)
	}
	return s
}

// fleetCol is a column of the fleet table: its header, its width, and a
// row's cell; right-aligned figures.
type fleetCol struct {
	head  string
	w     int
	right bool
	cell  func(fleet.Row) string
}

// stateForms are the state column's forms of a disconnected row, longest
// first: the table takes the longest that fits the screen.
var stateForms = []string{"disconnected since 15:04:05", "disconnected 15:04:05", "down 15:04:05"}

// fleetCols is the table's columns for rows on a screen w wide: the
// names and addresses as wide as the longest (within bounds), the state
// in the longest form that fits, the sizes-tried count when there is room.
func fleetCols(rows []fleet.Row, w int) []fleetCol {
	nameW, addrW := 4, 7
	for _, r := range rows {
		nameW, addrW = max(nameW, cellWidth(r.Name)), max(addrW, cellWidth(r.Addr))
	}
	nameW, addrW = min(nameW, 16), min(addrW, 28)
	na := func(ok bool, s string) string {
		if !ok {
			return "n/a"
		}
		return s
	}
	cpu := func(r fleet.Row) string { return na(r.CPUPercent >= 0, fmt.Sprintf("%.0f%%", r.CPUPercent)) }
	rss := func(r fleet.Row) string {
		return na(r.RSSBytes >= 0, fmt.Sprintf("%.0f MiB", session.Bytes(r.RSSBytes).MiB()))
	}
	figures := []fleetCol{
		{"workers", 7, true, func(r fleet.Row) string { return fmt.Sprint(r.Workers) }},
		{"loop p99", 9, true, func(r fleet.Row) string { return na(r.LoopKnown, fmtMs(r.LoopP99)+" ms") }},
		{"queue", 6, true, func(r fleet.Row) string { return fmt.Sprint(r.Queue) }},
		{"tasks/s", 8, true, func(r fleet.Row) string { return na(!math.IsNaN(r.TasksPerS), fmtNum(r.TasksPerS)) }},
		{"CPU", 5, true, cpu},
		{"RSS", 8, true, rss},
	}
	figures = append(figures, fleetCol{"sizes", 5, true, func(r fleet.Row) string { return fmt.Sprint(r.Sizes) }})
	for i := range figures {
		cell := figures[i].cell
		figures[i].cell = func(r fleet.Row) string {
			if !r.Live() {
				return "-"
			}
			return cell(r)
		}
	}
	figures, sizes := figures[:len(figures)-1], figures[len(figures)-1]
	width := func(cols []fleetCol) int {
		n := 2 // the selection mark
		for _, c := range cols {
			n += c.w + 1
		}
		return n - 1
	}
	// narrow is figures one cell closer each, "wkrs" for workers: 80
	// columns hold a row with 127.0.0.1:NNNNN and the short state.
	narrow := slices.Clone(figures)
	for i := range narrow {
		narrow[i].w--
	}
	narrow[0].head, narrow[0].w = "wkrs", 4
	// The first that fits: the widest figures, the longest state form.
	wideSizes := append(slices.Clone(figures), sizes)
	full, mid, short := 0, 1, 2 // in stateForms
	var cols []fleetCol
	for _, try := range []struct {
		figs []fleetCol
		form int
	}{{wideSizes, full}, {wideSizes, mid}, {figures, full}, {figures, mid}, {figures, short}, {narrow, mid}, {narrow, short}} {
		form := stateForms[try.form]
		state := fleetCol{"state", len(form), false, func(r fleet.Row) string {
			if r.Live() {
				return "live"
			}
			return strings.Replace(form, "15:04:05", r.Disconnected.Format("15:04:05"), 1)
		}}
		cols = append([]fleetCol{
			{"name", nameW, false, func(r fleet.Row) string { return r.Name }},
			{"address", addrW, false, func(r fleet.Row) string { return r.Addr }},
			state,
		}, try.figs...)
		if width(cols) <= w {
			return cols
		}
	}
	cols[0].w = max(cols[0].w-(width(cols)-w), 4) // the names cut, not the figures
	return cols
}

// fleetScreen is the fleet's screen: a title with the count and the sort
// key, the table's header, a row per process from the top of the window
// that holds the selected one (sel, an Index), the last action's refusal,
// and the footer.
func fleetScreen(rows []fleet.Row, sel int, key fleet.SortKey, errLine string, w, h int) string {
	if w < MinWidth || h < MinHeight {
		return cut(fmt.Sprintf("offtop needs %dx%d (now %dx%d)", MinWidth, MinHeight, w, h), max(w, 0))
	}
	cols := fleetCols(rows, w)
	line := func(mark string, cell func(fleetCol) string) string {
		var b strings.Builder
		b.WriteString(mark)
		for i, c := range cols {
			if i > 0 {
				b.WriteByte(' ')
			}
			s := cut(cell(c), c.w)
			if pad := c.w - cellWidth(s); pad > 0 && c.right {
				s = strings.Repeat(" ", pad) + s
			} else if pad > 0 {
				s += strings.Repeat(" ", pad)
			}
			b.WriteString(s)
		}
		return b.String()
	}
	fixed := 3 // title, header, footer
	if errLine != "" {
		fixed++
	}
	room := max(h-fixed, 1)
	at := 0
	for i, r := range rows {
		if r.Index == sel {
			at = i
		}
	}
	top := 0
	if at >= room {
		top = at - room + 1
	}
	end := min(top+room, len(rows))
	extra := fleetCount(rows) + "  sort: " + key.String()
	if len(rows) > room {
		extra += fmt.Sprintf("  rows %d-%d of %d", top+1, end, len(rows))
	}
	out := []string{title("offtop attach", extra, w),
		theme.Faint.Render(line("  ", func(c fleetCol) string { return c.head }))}
	for _, r := range rows[top:end] {
		mark := "  "
		if r.Index == sel {
			mark = "▸ "
		}
		l := line(mark, func(c fleetCol) string { return c.cell(r) })
		switch {
		case r.Index == sel:
			l = theme.Current.Render(l)
		case !r.Live():
			l = theme.Err.Render(l)
		}
		out = append(out, l)
	}
	for len(out) < h-fixed+2 {
		out = append(out, "")
	}
	if errLine != "" {
		out = append(out, fit(theme.Err.Render(markHot+" "+errLine), w))
	}
	out = append(out, fit(fleetFooter(w), w))
	for i := range out {
		out[i] = fit(out[i], w)
	}
	return strings.Join(out, "\n")
}
