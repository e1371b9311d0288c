module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x7xbf16>, %arg1: tensor<6x7xbf16>) -> (tensor<6x7xbf16> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %0 = stablehlo.pad %arg1, %cst, low = [1, 1], high = [1, 1], interior = [0, 0] : (tensor<6x7xbf16>, tensor<bf16>) -> tensor<8x9xbf16>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %1 = "stablehlo.select_and_scatter"(%0, %arg0, %cst_0) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg2: tensor<bf16>, %arg3: tensor<bf16>):
      %3 = stablehlo.compare GE, %arg2, %arg3, FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    }, {
    ^bb0(%arg2: tensor<bf16>, %arg3: tensor<bf16>):
      %3 = stablehlo.add %arg2, %arg3 : tensor<bf16>
      stablehlo.return %3 : tensor<bf16>
    }) : (tensor<8x9xbf16>, tensor<6x7xbf16>, tensor<bf16>) -> tensor<8x9xbf16>
    %2 = stablehlo.slice %1 [1:7, 1:8] : (tensor<8x9xbf16>) -> tensor<6x7xbf16>
    return %2 : tensor<6x7xbf16>
  }
}
