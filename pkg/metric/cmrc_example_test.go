package metric_test

import (
	"fmt"

	"github.com/qapipe/qapipe/pkg/metric"
)

func ExampleCMRCF1() {
	refs := []string{"北京大学", "北大"}
	fmt.Println(metric.CMRCEM("北京大学。", refs), metric.CMRCF1("北京", refs))
	fmt.Printf("%q\n", metric.CMRCSegment("U.S. Army的士兵"))
	// Output:
	// 1 0.6666666666666666
	// ["u.s." "army" "的" "士" "兵"]
}
