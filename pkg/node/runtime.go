package node

import "runtime/metrics"

// runtimeFigures reads the process's own figures for /diagnostics: a long
// flight shows there whether the node's goroutines or heap grow. It reads
// runtime/metrics, which does not stop the world as runtime.ReadMemStats
// does.
type runtimeFigures struct {
	samples []metrics.Sample // nil until the first report
}

// runtimeKeys are the diagnostics keys, in order, and the metrics they
// report.
var runtimeKeys = []struct{ key, metric string }{
	{"runtime.goroutines", "/sched/goroutines:goroutines"},
	{"runtime.heap_bytes", "/memory/classes/heap/objects:bytes"},
	{"runtime.total_bytes", "/memory/classes/total:bytes"},
	{"runtime.gc_cycles", "/gc/cycles/total:gc-cycles"},
}

// values reports each figure the runtime has (all of them, since Go 1.17).
func (r *runtimeFigures) values(kv func(string, uint64)) {
	if r.samples == nil {
		r.samples = make([]metrics.Sample, len(runtimeKeys))
		for i, k := range runtimeKeys {
			r.samples[i].Name = k.metric
		}
	}
	metrics.Read(r.samples)
	for i, s := range r.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			kv(runtimeKeys[i].key, s.Value.Uint64())
		}
	}
}
