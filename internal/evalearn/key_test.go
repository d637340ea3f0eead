package evalearn

import "testing"

// TestKey checks Key against Python's dict-key equality after json.loads (3 == 3.0 == True, etc.).
func TestKey(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		key  string
		n    int
		isIn bool
	}{
		{"3", "3", 3, true},
		{" 3 ", "3", 3, true},
		{"3.0", "3", 3, true},
		{"3e0", "3", 3, true},
		{"30e-1", "3", 3, true},
		{"3.00", "3", 3, true},
		{"true", "1", 1, true},
		{"false", "0", 0, true},
		{"-0", "0", 0, true},
		{"-0.0", "0", 0, true},
		{"-12", "-12", -12, true},
		{"-1.2e1", "-12", -12, true},
		{"2.5", "2.5", 0, false},
		{"2.50", "2.5", 0, false},
		{"25e-1", "2.5", 0, false},
		{"1e-300", "1e-300", 0, false},
		{"1e400", "inf", 0, false},
		{"-1e400", "-inf", 0, false},
		{"1e20", "100000000000000000000", 0, false},
		{"100000000000000000000", "100000000000000000000", 0, false},
		// 1e23 is the float 99999999999999991611392, not the int 10**23.
		{"1e23", "99999999999999991611392", 0, false},
		{"100000000000000000000000", "100000000000000000000000", 0, false},
		{"9007199254740993", "9007199254740993", 9007199254740993, true},
		{"9007199254740993.0", "9007199254740992", 9007199254740992, true},
		{`"3"`, `"3"`, 0, false},
		{`"\u0041<"`, `"A<"`, 0, false},
		{`"a\"b"`, `"a\"b"`, 0, false},
		{`[1, 2]`, `[1,2]`, 0, false},
		{`null`, `null`, 0, false},
	} {
		key, n, ok := Key([]byte(tt.raw))
		if key != tt.key || n != tt.n || ok != tt.isIn {
			t.Errorf("Key(%s) = %q, %d, %v; want %q, %d, %v", tt.raw, key, n, ok, tt.key, tt.n, tt.isIn)
		}
	}
}
