package scenarios

// MaxLoops is the most Loops "server" runs (--loops, l and L).
const MaxLoops = 8
