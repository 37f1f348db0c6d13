#pragma once
// The HDF5 layer in one include: files, groups, datasets, attributes, distributed 1D/3D
// transfers, time series, units and provenance attributes. See each header for details.
#include "io/box3.hpp"
#include "io/h5_attribute.hpp"
#include "io/h5_dataset.hpp"
#include "io/h5_error.hpp"
#include "io/h5_file.hpp"
#include "io/h5_handle.hpp"
#include "io/h5_types.hpp"
#include "io/provenance.hpp"
#include "io/time_series.hpp"
#include "io/units.hpp"
