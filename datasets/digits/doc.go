// Package digits generates a realistic image-classification data set from
// nothing but a seed: the digits 0–9 drawn from eleven typefaces (the ten
// Go fonts and a pixel font), each warped by a random affine map (rotation,
// scaling, shear, translation), its strokes thickened or thinned, and noise
// added, as 28×28 grayscale images in MNIST's layout (row-major uint8,
// 0 background, 255 ink).
//
// It lets demos, tests and benchmarks train and evaluate a real classifier
// with no download. The task is meant to be neither trivial nor hopeless:
// softmax regression reaches about 91 % accuracy (`sluice demo --hidden
// 0`) and the demo's small multilayer perceptron about 92 %, as on MNIST
// itself softmax regression reaches about 92 %.
//
// Glyphs are rasterised once per process; each image is then one affine
// warp with bilinear sampling, so generating tens of thousands of images
// takes well under a second per ten thousand on one core.
//
// The same seed gives the same images and labels on every run of a
// platform. Across platforms some pixels may differ (14 bytes of the
// demo's 24 000 images between two amd64 builds): where the compiler fuses a multiply and an add
// into one instruction, which rounds once instead of twice (arm64, ppc64,
// s390x, riscv64, and amd64 built with GOAMD64=v3), math's sine and
// cosine, the normal deviates of the noise and golang.org/x/image/vector's
// rasteriser round their last bits differently, and math.Exp on amd64
// uses the CPU's multiply-add when it has one. This package's own
// arithmetic is written so that it cannot be fused (float64(x*y)).
// TestGoldenDigest pins the bytes on amd64.
package digits
