module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xcomplex<f32>>) -> (tensor<12xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.real %arg0 : (tensor<12xcomplex<f32>>) -> tensor<12xf32>
    %1 = stablehlo.convert %0 : (tensor<12xf32>) -> tensor<12xbf16>
    return %1 : tensor<12xbf16>
  }
}
