package plandoc

import (
	"io"
	"os"
	"testing"
)

func BenchmarkZZ(b *testing.B) {
	for b.Loop() {
		f, _ := os.Open("/tmp/benchplans/plan-official-10000.json")
		p, err := Read(f)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
		if err := p.Build().WriteFile(io.Discard, p); err != nil {
			b.Fatal(err)
		}
	}
}
