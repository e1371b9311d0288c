module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf8E4M3FNUZ>) -> (tensor<4x3xf8E4M3FNUZ> {jax.result_info = "result"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<3x4xf8E4M3FNUZ>) -> tensor<4x3xf8E4M3FNUZ>
    return %0 : tensor<4x3xf8E4M3FNUZ>
  }
}
