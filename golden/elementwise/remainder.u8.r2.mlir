module @jit_rem attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xui8>, %arg1: tensor<3x5xui8>) -> (tensor<3x5xui8> {jax.result_info = "result"}) {
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<3x5xui8>
    return %0 : tensor<3x5xui8>
  }
}
