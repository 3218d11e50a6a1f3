package analysis_test

import (
	"fmt"
	"log"

	"contend/analysis"
)

func ExampleFitUSL() {
	// Throughput (operations per second) of three repetitions at each
	// thread count.
	n := []float64{1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64}
	x := []float64{
		1010, 990, 1000,
		1920, 1882, 1901,
		3477, 3408, 3442,
		5747, 5633, 5690,
		8121, 7960, 8040,
		9125, 8944, 9034,
		7900, 7744, 7822,
	}
	f, err := analysis.FitUSL(n, x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f.Model())
	fmt.Printf("lambda = %.0f ± %.0f\n", f.Lambda, f.LambdaSE)
	fmt.Printf("sigma  = %.3f ± %.3f (contention)\n", f.Sigma, f.SigmaSE)
	fmt.Printf("kappa  = %.5f ± %.5f (coherency)\n", f.Kappa, f.KappaSE)
	fmt.Printf("peak at N* = %.1f ± %.1f threads, %.0f ops/s\n", f.PeakN, f.PeakNSE, f.PeakX)
	fmt.Printf("R^2 = %.4f, residual SE %.1f%%\n", f.R2, 100*f.ResidualSE)
	fmt.Printf("predicted at 24 threads: %.0f ops/s\n", f.Predict(24))
	fmt.Println("warnings:", f.Warnings)
	// Output:
	// X(N) = lambda*N / (1 + sigma*(N-1) + kappa*N*(N-1))
	// lambda = 1000 ± 3
	// sigma  = 0.050 ± 0.001 (contention)
	// kappa  = 0.00100 ± 0.00002 (coherency)
	// peak at N* = 30.8 ± 0.3 threads, 9038 ops/s
	// R^2 = 0.9999, residual SE 0.9%
	// predicted at 24 threads: 8882 ops/s
	// warnings: []
}

func ExampleFitAmdahl() {
	n := []float64{1, 2, 4, 8, 16, 32}
	x := []float64{100, 190, 345, 580, 880, 1190}
	f, err := analysis.FitAmdahl(n, x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f.Model())
	fmt.Printf("lambda = %.1f ± %.1f, sigma = %.4f ± %.4f\n", f.Lambda, f.LambdaSE, f.Sigma, f.SigmaSE)
	fmt.Printf("asymptote %.0f ± %.0f ops/s\n", f.Asymptote, f.AsymptoteSE)
	// Output:
	// X(N) = lambda*N / (1 + sigma*(N-1))
	// lambda = 100.2 ± 0.1, sigma = 0.0546 ± 0.0001
	// asymptote 1833 ± 4 ops/s
}
