module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xui8>) -> (tensor<12xi1> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<ui8>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui8>) -> tensor<12xui8>
    %1 = stablehlo.compare NE, %arg0, %0, UNSIGNED : (tensor<12xui8>, tensor<12xui8>) -> tensor<12xi1>
    %2 = stablehlo.convert %1 : tensor<12xi1>
    return %2 : tensor<12xi1>
  }
}
