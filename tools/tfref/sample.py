"""Reference behaviour of TensorFlow for package sample.

Run by hand (never by CI), from the repository root:

    python tools/tfref/sample.py

with TensorFlow 2.21 installed (pip install tensorflow-cpu==2.21.0). It
writes sample/testdata/moving_average_tf.json: the running mean weight that
weighted_resample keeps, which is tf.compat.v1.train.assign_moving_average
(tensorflow.python.training.moving_averages; not in the public v1 API)
with zero_debias=True on a float64 variable starting at 0 (RE-05, RE-08),
after each of a sequence of batch means, for several decays. The
contrib.training module itself is gone from TensorFlow 2.21; the moving
average it called is not.
"""
import json

import numpy as np
import tensorflow as tf
from tensorflow.python.training import moving_averages

tf.compat.v1.disable_eager_execution()

CASES = [
    (0.999, [10.0, 20.0, 30.0]),
    (0.9, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]),
    (0.5, [4.0, 0.5, 8.0, 2.0, 2.0, 16.0]),
    (0.999, [float(x) for x in np.random.RandomState(1).uniform(0.1, 20, 50)]),
]


def moving_average(decay, means):
    with tf.Graph().as_default():
        var = tf.compat.v1.get_local_variable(
            "estimated_mean", initializer=tf.constant(0, tf.float64), dtype=tf.float64)
        batch_mean = tf.compat.v1.placeholder(tf.float64, [])
        update = moving_averages.assign_moving_average(var, batch_mean, decay)
        out = []
        with tf.compat.v1.Session() as sess:
            sess.run([tf.compat.v1.local_variables_initializer(),
                      tf.compat.v1.global_variables_initializer()])
            for m in means:
                out.append(float(sess.run(update, {batch_mean: m})))
        return out


def main():
    cases = [{"decay": d, "batch_means": m, "running_means": moving_average(d, m)}
             for d, m in CASES]
    with open("sample/testdata/moving_average_tf.json", "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
