module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xcomplex<f64>>) -> (tensor<complex<f64>> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<3x4xcomplex<f64>>) -> tensor<1x1xcomplex<f64>>
    %1 = stablehlo.reshape %0 : (tensor<1x1xcomplex<f64>>) -> tensor<complex<f64>>
    return %1 : tensor<complex<f64>>
  }
}
