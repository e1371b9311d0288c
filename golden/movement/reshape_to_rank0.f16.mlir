module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf16>) -> (tensor<f16> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<3x4xf16>) -> tensor<1x1xf16>
    %1 = stablehlo.reshape %0 : (tensor<1x1xf16>) -> tensor<f16>
    return %1 : tensor<f16>
  }
}
