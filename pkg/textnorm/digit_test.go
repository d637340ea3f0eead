package textnorm

import "testing"

func TestDecimalValue(t *testing.T) {
	tests := []struct {
		r    rune
		want int
		ok   bool
	}{
		{'0', 0, true}, {'7', 7, true}, {'\u0669', 9, true}, {'\u0966', 0, true}, {'\U0001D7D7', 9, true},
		{'\U0001D7D8', 0, true}, {'\U0001D7E1', 9, true}, {'\uff13', 3, true},
		{'a', 0, false}, {'²', 0, false}, {'①', 0, false}, {'Ⅰ', 0, false}, {'/', 0, false}, {':', 0, false},
	}
	for _, tt := range tests {
		if got, ok := DecimalValue(tt.r); got != tt.want || ok != tt.ok {
			t.Errorf("DecimalValue(%q) = %d, %v; want %d, %v", tt.r, got, ok, tt.want, tt.ok)
		}
	}
}
