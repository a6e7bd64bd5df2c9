package session

import hdr "github.com/HdrHistogram/hdrhistogram-go"

// LoopHistograms are copies of the Loop probe's raw and corrected
// lateness (ns) since the last Reset: the histograms behind ProbeRaw's
// and ProbeTotal's counts.
func (s *Session) LoopHistograms() (raw, corrected *hdr.Histogram) { return s.lag.Histograms() }
