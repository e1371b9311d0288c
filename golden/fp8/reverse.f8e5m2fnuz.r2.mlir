module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf8E5M2FNUZ>) -> (tensor<3x4xf8E5M2FNUZ> {jax.result_info = "result"}) {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<3x4xf8E5M2FNUZ>
    return %0 : tensor<3x4xf8E5M2FNUZ>
  }
}
