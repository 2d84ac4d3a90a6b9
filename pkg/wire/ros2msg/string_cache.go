package ros2msg

// StringCache lets a decoder reuse the strings it decoded recently instead
// of allocating them again: a stream repeats most of its strings (every
// self-assessment of a run carries the same thresholds hash, every decision
// one of a few reasons and one policy id). A hit moves to the front; a new
// string enters the middle, pushing out the last: a field that never
// repeats (a decision's assessment hash) churns only the back half, and a
// string seen twice is promoted before it is pushed out. Not safe for
// concurrent use: one per decoder.
type StringCache struct {
	s [8]string
}

// get returns b as a string, the cached one when b equals it.
func (c *StringCache) get(b []byte) string {
	for i := range c.s {
		if c.s[i] == string(b) { // compared without a conversion
			s := c.s[i]
			copy(c.s[1:i+1], c.s[:i])
			c.s[0] = s
			return s
		}
	}
	s := string(b)
	mid := len(c.s) / 2
	copy(c.s[mid+1:], c.s[mid:len(c.s)-1])
	c.s[mid] = s
	return s
}

// UnmarshalCDRCached is UnmarshalCDR taking strings from c.
func (m *BeliefSelfAssessment) UnmarshalCDRCached(data []byte, c *StringCache) error {
	d := cdrDecoder{strs: c}
	if !d.start(data, "ghost/msg/BeliefSelfAssessment") {
		return d.err
	}
	var v BeliefSelfAssessment
	v.cdrDecode(&d)
	if err := d.finish(); err != nil {
		return err
	}
	*m = v
	return nil
}

// UnmarshalCDRCached is UnmarshalCDR taking strings from c.
func (m *DecisionRationale) UnmarshalCDRCached(data []byte, c *StringCache) error {
	d := cdrDecoder{strs: c}
	if !d.start(data, "ghost/msg/DecisionRationale") {
		return d.err
	}
	var v DecisionRationale
	v.cdrDecode(&d)
	if err := d.finish(); err != nil {
		return err
	}
	*m = v
	return nil
}
