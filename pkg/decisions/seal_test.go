package decisions

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"reflect"
	"testing"
)

// TestSealCoversEveryField changes each exported field of a sealed
// assessment in turn: the seal must stop vouching for the value, and SHA256
// must then give the hash of the changed content. A field added to
// SelfAssessment but not to sameContent fails here.
func TestSealCoversEveryField(t *testing.T) {
	base := validAssessment(t, 42, LevelKnown)
	base.Seal()
	if _, ok := base.SealedSHA256(); !ok {
		t.Fatal("a freshly sealed assessment is not sealed")
	}
	typ := reflect.TypeFor[SelfAssessment]()
	exported := 0
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		exported++
		t.Run(f.Name, func(t *testing.T) {
			a := base // copies the seal
			if !nudge(reflect.ValueOf(&a).Elem().Field(i)) {
				t.Fatalf("no way to change a %s field", f.Type)
			}
			if h, ok := a.SealedSHA256(); ok {
				t.Fatalf("seal still vouches (%s) after %s changed", h, f.Name)
			}
			fresh := a
			fresh.seal = nil
			if got, want := a.SHA256(), hashHex(fresh.CanonicalJSON()); got != want {
				t.Fatalf("SHA256 = %s, want the changed content's %s", got, want)
			}
			if got, want := errText(a.Validate()), errText(fresh.Validate()); got != want {
				t.Fatalf("Validate = %q, want the changed content's %q", got, want)
			}
			if _, ok := base.SealedSHA256(); !ok {
				t.Fatal("changing a copy broke the original's seal")
			}
		})
	}
	if exported != 9 {
		t.Fatalf("SelfAssessment has %d exported fields; this test and sameContent know 9", exported)
	}
}

// nudge changes v to another value of its type (the first element of an
// array, the first field of a struct), bit for bit.
func nudge(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint8:
		v.SetUint(v.Uint() ^ 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Float64:
		v.SetFloat(math.Float64frombits(math.Float64bits(v.Float()) ^ 1))
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Array:
		return v.Len() > 0 && nudge(v.Index(0))
	case reflect.Struct:
		return v.NumField() > 0 && nudge(v.Field(0))
	default:
		return false
	}
	return true
}

func TestSealSemantics(t *testing.T) {
	a := validAssessment(t, 7, LevelUncertain)
	want := a.SHA256()
	if _, ok := a.SealedSHA256(); ok {
		t.Fatal("an assessment is sealed before Seal")
	}
	b := a
	b.Seal()
	if h, ok := b.SealedSHA256(); !ok || h != want {
		t.Fatalf("sealed hash %q (%v), want %s", h, ok, want)
	}
	if !a.Equal(&b) || !b.Equal(&a) {
		t.Fatal("Equal must ignore the seal")
	}
	// Zero and negative zero are written differently: the seal must see it.
	c := b
	c.Std[1] = math.Copysign(0, -1)
	d := b
	d.Std[1] = 0
	if c.Equal(&d) || c.SHA256() == d.SHA256() {
		t.Fatal("0.0 and -0.0 must differ")
	}
	// Two NaNs with the same payload are one value (both "null").
	e := b
	e.Std[2] = math.NaN()
	e.Seal()
	if _, ok := e.SealedSHA256(); !ok {
		t.Fatal("a NaN std must not defeat the seal")
	}
	// Sealing again is a no-op that keeps the same seal.
	s := b.seal
	b.Seal()
	if b.seal != s {
		t.Fatal("resealing an unchanged value replaced its seal")
	}
}

// FuzzSeal: whatever the content, a sealed value hashes like an unsealed
// one, and a change to any std breaks the seal.
func FuzzSeal(f *testing.F) {
	f.Add(int64(0), 0.1, uint8(0), uint64(1))
	f.Add(int64(1<<62), math.Inf(1), uint8(2), uint64(0x8000000000000000))
	f.Add(int64(5), math.Copysign(0, -1), uint8(1), uint64(3))
	f.Fuzz(func(t *testing.T, stamp int64, std float64, lvl uint8, flip uint64) {
		a := validAssessment(t, 1, LevelKnown)
		a.BeliefStampSimNs = stamp
		a.Std[int(lvl)%9] = std
		a.AxisLevel[int(lvl)%9] = Level(lvl % 5) // 3 and 4 are invalid
		want, wantErr := a.SHA256(), errText(a.Validate())
		a.Seal()
		if got := a.SHA256(); got != want {
			t.Fatalf("sealed %s, unsealed %s", got, want)
		}
		if sum := a.SHA256Sum(); hex.EncodeToString(sum[:]) != want {
			t.Fatalf("sealed SHA256Sum %x, SHA256 %s", sum, want)
		}
		if got := errText(a.Validate()); got != wantErr {
			t.Fatalf("sealed: Validate = %q, unsealed %q", got, wantErr)
		}
		if flip == 0 {
			return
		}
		b := a
		i := int(flip % 9)
		b.Std[i] = math.Float64frombits(math.Float64bits(b.Std[i]) ^ flip)
		fresh := b
		fresh.seal = nil
		if got, want := b.SHA256(), hashHex(fresh.CanonicalJSON()); got != want {
			t.Fatalf("after a change: %s, want %s", got, want)
		}
		if sum, want := b.SHA256Sum(), sha256.Sum256(fresh.CanonicalJSON()); sum != want {
			t.Fatalf("after a change: SHA256Sum %x, want %x", sum, want)
		}
		b.BeliefStampSimNs = -1 - int64(flip>>2) // invalid, whatever the seal says
		if b.Validate() == nil {
			t.Fatal("a sealed value changed to an invalid stamp validates")
		}
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Seals made with one memo share its blocks of storage: each must stay
// its own assessment's after many more are made, across blocks.
func TestSealsFromOneMemoStayTheirs(t *testing.T) {
	var memo TextMemo
	as := estimatorAssessments(t, 3*sealSlab+5)
	for i := range as {
		as[i].SealWith(&memo)
	}
	for i := range as {
		h, ok := as[i].SealedSHA256()
		plain := as[i]
		plain.seal = nil
		if want := plain.SHA256(); !ok || h != want {
			t.Fatalf("assessment %d: sealed %q (%v), its own hash %q", i, h, ok, want)
		}
		if as[i].seal.of.BeliefStampSimNs != as[i].BeliefStampSimNs {
			t.Fatalf("assessment %d carries the seal of stamp %d", i, as[i].seal.of.BeliefStampSimNs)
		}
	}
}
