module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x0xcomplex<f32>>) -> (tensor<0x3xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x0xcomplex<f32>>) -> tensor<0x3xcomplex<f32>>
    return %0 : tensor<0x3xcomplex<f32>>
  }
}
