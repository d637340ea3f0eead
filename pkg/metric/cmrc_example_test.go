package metric_test

import (
	"fmt"

	"github.com/qapipe/qapipe/pkg/metric"
)

func ExampleCMRCF1() {
	refs := []string{"北京大学", "北大"}
	fmt.Println(metric.CMRCEM("北京大学。", refs), metric.CMRCF1("北京", refs))
	fmt.Printf("%q\n", metric.CMRCSegment("U.S. Army的士兵"))
	// The script's punctuation is dropped; ASCII punctuation is not.
	fmt.Printf("%q\n", metric.CMRCSegment("北京，大学-一!"))
	fmt.Println(metric.CMRCEM("北京,", []string{"北京"}), metric.CMRCF1("北京,", []string{"北京"}))
	// Output:
	// 1 0.6666666666666666
	// ["u.s." "army" "的" "士" "兵"]
	// ["北" "京" "大" "学" "一" "!"]
	// 0 0.8
}
