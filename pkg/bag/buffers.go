package bag

import "sync"

// maxFreeBatches bounds the chunk buffers kept for reuse: as many as the
// pipeline holds at once (the queue, the lanes and the open chunk).
const maxFreeBatches = 3*chunkLanes + 1

// Buffers hold the chunk buffers and compressors of Recorders given them
// in RecorderOptions. The files of one split recording share one set: the
// file being closed and the one being filled then draw on the same memory
// instead of each holding its own while the first drains. A Buffers is
// safe for concurrent use; its zero value is not, use NewBuffers.
type Buffers struct {
	mu          sync.Mutex
	batches     []*batch
	compressors []*compressor
}

// NewBuffers returns an empty set; it grows to what its Recorders use at once.
func NewBuffers() *Buffers { return &Buffers{} }

// batch returns a free chunk buffer, or a new one reserving up to chunkSize.
func (p *Buffers) batch(chunkSize int64) *batch {
	p.mu.Lock()
	if n := len(p.batches); n > 0 {
		b := p.batches[n-1]
		p.batches[n-1] = nil
		p.batches = p.batches[:n-1]
		p.mu.Unlock()
		return b
	}
	p.mu.Unlock()
	// Reserving the chunk's size up front spares the append doublings.
	recs := make([]byte, 0, min(chunkSize, maxBatchPrealloc)+msgRecordHeader+64)
	return &batch{ready: make(chan struct{}, 1), recs: recs}
}

// putBatch keeps an emptied b for reuse, or drops it when enough are kept.
func (p *Buffers) putBatch(b *batch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.batches) < maxFreeBatches {
		p.batches = append(p.batches, b)
	}
}

// compressor returns a free compressor, or a new one that allocates its
// encoders on first use.
func (p *Buffers) compressor() *compressor {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.compressors); n > 0 {
		c := p.compressors[n-1]
		p.compressors = p.compressors[:n-1]
		return c
	}
	return new(compressor)
}

// putCompressor keeps c for the next chunk of any of the Recorders.
func (p *Buffers) putCompressor(c *compressor) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.compressors = append(p.compressors, c)
}
