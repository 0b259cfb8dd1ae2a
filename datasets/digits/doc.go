// Package digits generates a realistic image-classification data set from
// nothing but a seed: the digits 0–9 drawn from eleven typefaces (the ten
// Go fonts and a pixel font), each warped by a random affine map (rotation,
// scaling, shear, translation), its strokes thickened or thinned, and noise
// added, as 28×28 grayscale images in MNIST's layout (row-major uint8,
// 0 background, 255 ink).
//
// It lets demos, tests and benchmarks train and evaluate a real classifier
// with no download. The task is meant to be neither trivial nor hopeless:
// softmax regression reaches roughly 80–90 % accuracy and a small
// multilayer perceptron a few points more, much as on MNIST itself.
//
// Glyphs are rasterised once per process; each image is then one affine
// warp with bilinear sampling, so generating tens of thousands of images
// takes well under a second per ten thousand on one core.
//
// The same seed gives the same images and labels in every build: products
// are rounded explicitly so that the compiler cannot fuse them into
// multiply-adds (as it may on arm64, ppc64, s390x and riscv64, and on amd64
// with GOAMD64=v3), and the sine, cosine and normal deviates are computed
// by this package rather than by math and math/rand/v2, whose last bits
// depend on the platform and, for math.Exp on amd64, on the CPU. One part
// is outside its control: the glyphs are rasterised by
// golang.org/x/image/vector, which the compiler may also fuse on those
// platforms; TestGoldenDigest pins the bytes of three seeds, so running it
// on such a platform shows whether that matters.
package digits
