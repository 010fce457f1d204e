/*
 * The C half of the Python package mpixrma: the library's communicator and
 * persistent request as Python types over the C API (include/mpix/mpix.h).
 * mpixrma/__init__.py parses mpi4py-style buffer specifications and hands
 * this module plain values: buffers (the buffer protocol), count and
 * displacement sequences, and MPI handles as the Fortran integers
 * mpi4py's public py2f() gives (MPI_Comm_f2c, MPI_Type_f2c here).
 *
 * Invariants:
 * - A request holds a view of every buffer it was given (Py_buffer, which
 *   also pins a NumPy array's memory against resizing) until it is freed:
 *   the library keeps their addresses, so Python must not free them first.
 * - Nothing here makes a collective call from a destructor (freeing a
 *   communicator or an RMA request is collective, and a garbage collector
 *   runs on one rank at a time): what the program does not free is freed
 *   by the library when MPI_Finalize starts, as in C.
 * - Start, Wait and Test do no more than the C call and its error check:
 *   they are what a loop pays per iteration.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <mpi.h>
#include <mpix/mpix.h>
#include <string.h>

/* The shape of the two vector families' inits. */
typedef int (*vector_init_function)(const void *, const int[], const int[], MPI_Datatype, void *, const int[],
                                    const int[], MPI_Datatype, MPIX_Comm *, MPIX_Info *, MPIX_Request **);

static PyObject *mpix_error; /* mpixrma.Error */

/* Raises mpixrma.Error with message; error_code holds code. */
static PyObject *raise_error(const char *message, Py_ssize_t length, int code) {
    PyObject *error = PyObject_CallFunction(mpix_error, "s#", message, length);
    if (error == NULL) return NULL;
    PyObject *value = PyLong_FromLong(code);
    if (value != NULL) PyObject_SetAttrString(error, "error_code", value);
    Py_XDECREF(value);
    PyErr_SetObject(mpix_error, error);
    Py_DECREF(error);
    return NULL;
}

/* Raises mpixrma.Error with the library's message for code. */
static PyObject *raise_code(int code) {
    char message[MPIX_MAX_ERROR_STRING];
    int length = 0;
    if (MPIX_Error_string(code, message, &length) != MPI_SUCCESS) length = 0;
    return raise_error(message, length, code);
}

/* Raises mpixrma.Error for a handle freed already, as mpi4py raises
 * MPI.Exception for a null handle: error_code holds the class. */
static PyObject *raise_freed(const char *what, int code) { return raise_error(what, (Py_ssize_t)strlen(what), code); }

/* The Fortran handle an mpi4py object's public py2f() gives, as MPI_Fint;
 * -1 with an exception set if it is not an int. */
static int fortran_handle(PyObject *integer, MPI_Fint *handle) {
    const long value = PyLong_AsLong(integer);
    if (value == -1 && PyErr_Occurred()) return -1;
    *handle = (MPI_Fint)value;
    return 0;
}

/* Sets an mpi4py Status (or does nothing for None) to the empty status of
 * a completed persistent collective, as MPI defines it; -1 with an
 * exception set if it is not a Status. */
static int set_empty_status(PyObject *status) {
    if (status == NULL || status == Py_None) return 0;
    const struct {
        const char *method;
        int value;
    } fields[] = {{"Set_source", MPI_ANY_SOURCE}, {"Set_tag", MPI_ANY_TAG}, {"Set_error", MPI_SUCCESS}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
        PyObject *done = PyObject_CallMethod(status, fields[i].method, "i", fields[i].value);
        if (done == NULL) return -1;
        Py_DECREF(done);
    }
    return 0;
}

/* A sequence of Python ints as a new C array (PyMem_Free it); NULL with an
 * exception set if it is not one. */
static int *int_array(PyObject *sequence, Py_ssize_t *length) {
    PyObject *fast = PySequence_Fast(sequence, "counts and displacements must be sequences of integers");
    if (fast == NULL) return NULL;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int *values = PyMem_Malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (Py_ssize_t i = 0; values != NULL && i < n; ++i) {
        const long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            PyMem_Free(values);
            values = NULL;
        } else if (v < -2147483647L - 1 || v > 2147483647L) {
            PyErr_SetString(PyExc_OverflowError, "a count or displacement does not fit a C int");
            PyMem_Free(values);
            values = NULL;
        } else {
            values[i] = (int)v;
        }
    }
    Py_DECREF(fast);
    if (values == NULL && !PyErr_Occurred()) PyErr_NoMemory();
    *length = n;
    return values;
}

/* ---- Comm --------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    MPIX_Comm *comm;
} Comm;

static int comm_init(Comm *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"fortran_handle", NULL};
    PyObject *handle;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", keywords, &handle)) return -1;
    MPI_Fint comm;
    if (fortran_handle(handle, &comm) != 0) return -1;
    const int code = MPIX_Comm_init(&self->comm, MPI_Comm_f2c(comm));
    if (code != MPI_SUCCESS) {
        raise_code(code);
        return -1;
    }
    return 0;
}

static PyObject *comm_free(Comm *self, PyObject *unused) {
    (void)unused;
    if (self->comm == NULL) return raise_freed("Free: the communicator is freed already", MPI_ERR_COMM);
    const int code = MPIX_Comm_free(&self->comm);
    if (code != MPI_SUCCESS) return raise_code(code);
    Py_RETURN_NONE;
}

static PyMethodDef comm_methods[] = {
    {"Free", (PyCFunction)comm_free, METH_NOARGS, "MPIX_Comm_free (collective)."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject CommType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mpixrma._mpixrma.Comm",
    .tp_basicsize = sizeof(Comm),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The library's communicator over an MPI communicator (MPIX_Comm_init; collective).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)comm_init,
    .tp_methods = comm_methods,
};

/* ---- Request ------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    MPIX_Request *request;
    PyObject *comm;        /* the Comm it was made on, kept alive */
    int owns_comm;         /* made for this request alone: freed with it */
    Py_buffer send, recv;  /* the buffers given at init, held until freed */
    Py_buffer moved_send, moved_recv; /* the last Start_with_buffers' */
    int has_send, has_recv, has_moved;
} Request;

static void release_moved(Request *self) {
    if (!self->has_moved) return;
    if (self->moved_send.obj != NULL) PyBuffer_Release(&self->moved_send);
    PyBuffer_Release(&self->moved_recv);
    self->has_moved = 0;
}

static void release_views(Request *self) {
    if (self->has_send) PyBuffer_Release(&self->send);
    if (self->has_recv) PyBuffer_Release(&self->recv);
    self->has_send = self->has_recv = 0;
    release_moved(self);
}

static void request_dealloc(Request *self) {
    release_views(self);
    Py_XDECREF(self->comm);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *request_start(Request *self, PyObject *unused) {
    (void)unused;
    const int code = MPIX_Start(self->request);
    if (code != MPI_SUCCESS) return raise_code(code);
    Py_RETURN_NONE;
}

/* Wait(status=None), as mpi4py's: status, if given, is set empty. */
static PyObject *request_wait(Request *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"status", NULL};
    PyObject *status = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", keywords, &status)) return NULL;
    int code;
    Py_BEGIN_ALLOW_THREADS code = MPIX_Wait(self->request, MPI_STATUS_IGNORE);
    Py_END_ALLOW_THREADS if (code != MPI_SUCCESS) return raise_code(code);
    if (set_empty_status(status) != 0) return NULL;
    Py_RETURN_NONE;
}

/* Test(status=None): whether it completed; status, if given and it did,
 * is set empty. */
static PyObject *request_test(Request *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"status", NULL};
    PyObject *status = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", keywords, &status)) return NULL;
    int flag = 0;
    const int code = MPIX_Test(self->request, &flag, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) return raise_code(code);
    if (flag && set_empty_status(status) != 0) return NULL;
    return PyBool_FromLong(flag);
}

static PyObject *request_free(Request *self, PyObject *unused) {
    (void)unused;
    if (self->request == NULL) return raise_freed("Free: the request is freed already", MPI_ERR_REQUEST);
    const int code = MPIX_Request_free(&self->request);
    if (code != MPI_SUCCESS) return raise_code(code);
    release_views(self);
    if (self->owns_comm) {
        self->owns_comm = 0;
        return comm_free((Comm *)self->comm, NULL);
    }
    Py_RETURN_NONE;
}

/* The request's communicator was made for it alone: Free frees it too. */
static PyObject *request_own_comm(Request *self, PyObject *unused) {
    (void)unused;
    self->owns_comm = 1;
    Py_RETURN_NONE;
}

/* MPIX_Start_with_buffers: buffers of the same sizes as those given at
 * init, held until the next Start_with_buffers or Free. */
static PyObject *request_start_with_buffers(Request *self, PyObject *args) {
    PyObject *send_object, *recv_object;
    if (!PyArg_ParseTuple(args, "OO", &send_object, &recv_object)) return NULL;
    if (self->request == NULL) return raise_freed("Start_with_buffers: the request is freed", MPI_ERR_REQUEST);
    Py_buffer send = {0}, recv;
    if (send_object != Py_None && PyObject_GetBuffer(send_object, &send, PyBUF_ANY_CONTIGUOUS) != 0) return NULL;
    if (PyObject_GetBuffer(recv_object, &recv, PyBUF_ANY_CONTIGUOUS | PyBUF_WRITABLE) != 0) {
        if (send.obj != NULL) PyBuffer_Release(&send);
        return NULL;
    }
    const int same = (send_object == Py_None) == !self->has_send &&
                     (send.obj == NULL || send.len == self->send.len) && recv.len == self->recv.len;
    if (!same) {
        if (send.obj != NULL) PyBuffer_Release(&send);
        PyBuffer_Release(&recv);
        PyErr_SetString(PyExc_ValueError, "Start_with_buffers: the buffers must have the sizes of those given at "
                                          "init (and sendbuf be IN_PLACE if and only if it was)");
        return NULL;
    }
    const int code = MPIX_Start_with_buffers(self->request, send.obj != NULL ? send.buf : MPI_IN_PLACE, recv.buf);
    if (code != MPI_SUCCESS) {
        if (send.obj != NULL) PyBuffer_Release(&send);
        PyBuffer_Release(&recv);
        return raise_code(code);
    }
    release_moved(self);
    self->moved_send = send;
    self->moved_recv = recv;
    self->has_moved = 1;
    Py_RETURN_NONE;
}

static PyObject *request_algorithm(Request *self, void *closure) {
    (void)closure;
    char name[MPIX_MAX_OBJECT_NAME];
    int length = 0;
    const int code = MPIX_Request_get_algorithm(self->request, name, &length);
    if (code != MPI_SUCCESS) return raise_code(code);
    return PyUnicode_FromStringAndSize(name, length);
}

static PyObject *request_settled(Request *self, void *closure) {
    (void)closure;
    int flag = 0;
    const int code = MPIX_Request_is_settled(self->request, &flag);
    if (code != MPI_SUCCESS) return raise_code(code);
    return PyBool_FromLong(flag);
}

static PyObject *request_enter(Request *self, PyObject *unused) {
    (void)unused;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *request_exit(Request *self, PyObject *args) {
    (void)args;
    if (self->request == NULL) Py_RETURN_FALSE; /* freed inside the block */
    PyObject *done = request_free(self, NULL);
    if (done == NULL) return NULL;
    Py_DECREF(done);
    Py_RETURN_FALSE;
}

static PyMethodDef request_methods[] = {
    {"Start", (PyCFunction)request_start, METH_NOARGS, "MPIX_Start."},
    {"Wait", (PyCFunction)(void (*)(void))request_wait, METH_VARARGS | METH_KEYWORDS,
     "MPIX_Wait; status, if given, is set empty (a persistent collective's)."},
    {"Test", (PyCFunction)(void (*)(void))request_test, METH_VARARGS | METH_KEYWORDS,
     "MPIX_Test: whether it completed; status, if given, is set empty once it did."},
    {"Free", (PyCFunction)request_free, METH_NOARGS,
     "MPIX_Request_free (collective for RMA algorithms); releases the buffers."},
    {"Start_with_buffers", (PyCFunction)request_start_with_buffers, METH_VARARGS,
     "MPIX_Start_with_buffers(sendbuf or None for IN_PLACE, recvbuf): only for mpix_buffers_move requests."},
    {"_own_comm", (PyCFunction)request_own_comm, METH_NOARGS, "Free frees the communicator too."},
    {"__enter__", (PyCFunction)request_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)request_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef request_getset[] = {
    {"algorithm", (getter)request_algorithm, NULL, "The algorithm that runs it now.", NULL},
    {"settled", (getter)request_settled, NULL, "Whether it runs its chosen algorithm.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject RequestType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mpixrma._mpixrma.Request",
    .tp_basicsize = sizeof(Request),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A persistent exchange: Start, Wait, Test, Free; a context manager that frees it.",
    .tp_dealloc = (destructor)request_dealloc,
    .tp_methods = request_methods,
    .tp_getset = request_getset,
};

/* ---- init calls --------------------------------------------------------- */

/* An MPIX_Info from a dict of strings (NULL for None); *info_out NULL if none. */
static int info_from(PyObject *dict, MPIX_Info **info_out) {
    *info_out = NULL;
    if (dict == Py_None) return 0;
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "info must be a dict of strings");
        return -1;
    }
    int code = MPIX_Info_init(info_out);
    PyObject *key, *value;
    Py_ssize_t position = 0;
    while (code == MPI_SUCCESS && PyDict_Next(dict, &position, &key, &value)) {
        const char *k = PyUnicode_AsUTF8(key), *v = PyUnicode_AsUTF8(value);
        if (k == NULL || v == NULL) {
            MPIX_Info_free(info_out);
            return -1;
        }
        code = MPIX_Info_set(*info_out, k, v);
    }
    if (code != MPI_SUCCESS) {
        if (*info_out != NULL) MPIX_Info_free(info_out);
        raise_code(code);
        return -1;
    }
    return 0;
}

/* A new Request holding views of sendbuf (None: MPI_IN_PLACE) and recvbuf. */
static Request *new_request(PyObject *comm, PyObject *send_object, PyObject *recv_object) {
    if (!PyObject_TypeCheck(comm, &CommType) || ((Comm *)comm)->comm == NULL) {
        PyErr_SetString(PyExc_TypeError, "comm must be a live mpixrma Comm");
        return NULL;
    }
    Request *self = PyObject_New(Request, &RequestType);
    if (self == NULL) return NULL;
    self->request = NULL;
    self->has_send = self->has_recv = self->has_moved = self->owns_comm = 0;
    self->moved_send.obj = NULL;
    Py_INCREF(comm);
    self->comm = comm;
    if (send_object != Py_None) {
        if (PyObject_GetBuffer(send_object, &self->send, PyBUF_ANY_CONTIGUOUS) != 0) goto fail;
        self->has_send = 1;
    }
    if (PyObject_GetBuffer(recv_object, &self->recv, PyBUF_ANY_CONTIGUOUS | PyBUF_WRITABLE) != 0) goto fail;
    self->has_recv = 1;
    return self;
fail:
    Py_DECREF(self);
    return NULL;
}

/* The send and receive datatypes from their Fortran handles; -1 with an
 * exception. */
static int datatypes(PyObject *sendtype, PyObject *recvtype, MPI_Datatype *stype, MPI_Datatype *rtype) {
    MPI_Fint send, recv;
    if (fortran_handle(sendtype, &send) != 0 || fortran_handle(recvtype, &recv) != 0) return -1;
    *stype = MPI_Type_f2c(send);
    *rtype = MPI_Type_f2c(recv);
    return 0;
}

/* What an init call returns: the request, or NULL with the exception its
 * making raised (the request and its buffer views released). */
static PyObject *made(Request *self) {
    if (PyErr_Occurred()) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* _vector_init(family, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
 * recvcounts, rdispls, recvtype, comm, info): family "alltoallv" or
 * "neighbor_alltoallv". */
static PyObject *vector_init(PyObject *module, PyObject *args) {
    (void)module;
    const char *family;
    PyObject *send_object, *sendcounts, *sdispls, *sendtype, *recv_object, *recvcounts, *rdispls, *recvtype;
    PyObject *comm, *info_dict;
    if (!PyArg_ParseTuple(args, "sOOOOOOOOOO", &family, &send_object, &sendcounts, &sdispls, &sendtype,
                          &recv_object, &recvcounts, &rdispls, &recvtype, &comm, &info_dict))
        return NULL;
    vector_init_function init = NULL;
    if (strcmp(family, "alltoallv") == 0) init = MPIX_Alltoallv_init;
    if (strcmp(family, "neighbor_alltoallv") == 0) init = MPIX_Neighbor_alltoallv_init;
    if (init == NULL) return PyErr_Format(PyExc_ValueError, "no vector family '%s'", family);
    MPI_Datatype stype, rtype;
    if (datatypes(sendtype, recvtype, &stype, &rtype) != 0) return NULL;
    Request *self = new_request(comm, send_object, recv_object);
    if (self == NULL) return NULL;
    Py_ssize_t n[4];
    int *arrays[4] = {int_array(sendcounts, &n[0]), NULL, NULL, NULL};
    if (arrays[0] != NULL) arrays[1] = int_array(sdispls, &n[1]);
    if (arrays[1] != NULL) arrays[2] = int_array(recvcounts, &n[2]);
    if (arrays[2] != NULL) arrays[3] = int_array(rdispls, &n[3]);
    MPIX_Info *info = NULL;
    int code = MPI_SUCCESS;
    if (arrays[3] != NULL && info_from(info_dict, &info) == 0) {
        code = init(self->has_send ? self->send.buf : MPI_IN_PLACE, arrays[0], arrays[1], stype, self->recv.buf,
                    arrays[2], arrays[3], rtype, ((Comm *)comm)->comm, info, &self->request);
        if (info != NULL) MPIX_Info_free(&info);
        if (code != MPI_SUCCESS) raise_code(code);
    }
    for (int i = 0; i < 4; ++i) PyMem_Free(arrays[i]);
    return made(self);
}

/* _alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount,
 * recvtype, comm, info). */
static PyObject *alltoall_init(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *send_object, *sendtype, *recv_object, *recvtype, *comm, *info_dict;
    int sendcount, recvcount;
    if (!PyArg_ParseTuple(args, "OiOOiOOO", &send_object, &sendcount, &sendtype, &recv_object, &recvcount,
                          &recvtype, &comm, &info_dict))
        return NULL;
    MPI_Datatype stype, rtype;
    if (datatypes(sendtype, recvtype, &stype, &rtype) != 0) return NULL;
    Request *self = new_request(comm, send_object, recv_object);
    if (self == NULL) return NULL;
    MPIX_Info *info = NULL;
    if (info_from(info_dict, &info) == 0) {
        const int code = MPIX_Alltoall_init(self->has_send ? self->send.buf : MPI_IN_PLACE, sendcount, stype,
                                            self->recv.buf, recvcount, rtype, ((Comm *)comm)->comm, info,
                                            &self->request);
        if (info != NULL) MPIX_Info_free(&info);
        if (code != MPI_SUCCESS) raise_code(code);
    }
    return made(self);
}

/* Every family of collectives/families.def, by folder, with its public
 * listing: the families table is the only list of them. */
typedef struct {
    const char *folder;
    int (*count)(int *);
    int (*describe)(int, const char **, const char **, int *);
} ListedFamily;

static const ListedFamily listed_families[] = {
#define MPIX_FAMILY(folder, Name, rows_namespace, ...) {#folder, MPIX_##Name##_algorithm_count, MPIX_##Name##_algorithm},
#include "collectives/families.def"
#undef MPIX_FAMILY
};

/* _algorithms(family): [(name, description, capabilities)] from its listing. */
static PyObject *algorithms(PyObject *module, PyObject *args) {
    (void)module;
    const char *family;
    if (!PyArg_ParseTuple(args, "s", &family)) return NULL;
    const ListedFamily *listed = NULL;
    for (size_t i = 0; i < sizeof listed_families / sizeof *listed_families; ++i)
        if (strcmp(family, listed_families[i].folder) == 0) listed = &listed_families[i];
    if (listed == NULL) return PyErr_Format(PyExc_ValueError, "no family '%s' in collectives/families.def", family);
    int (*count_of)(int *) = listed->count;
    int (*describe)(int, const char **, const char **, int *) = listed->describe;
    int count = 0;
    int code = count_of(&count);
    if (code != MPI_SUCCESS) return raise_code(code);
    PyObject *rows = PyList_New(count);
    for (int i = 0; rows != NULL && i < count; ++i) {
        const char *name, *description;
        int capabilities;
        code = describe(i, &name, &description, &capabilities);
        if (code != MPI_SUCCESS) {
            Py_DECREF(rows);
            return raise_code(code);
        }
        PyList_SET_ITEM(rows, i, Py_BuildValue("(ssi)", name, description, capabilities));
    }
    return rows;
}

static PyMethodDef module_methods[] = {
    {"_vector_init", vector_init, METH_VARARGS, "MPIX_Alltoallv_init or MPIX_Neighbor_alltoallv_init."},
    {"_alltoall_init", alltoall_init, METH_VARARGS, "MPIX_Alltoall_init."},
    {"_algorithms", algorithms, METH_VARARGS, "A family's registered algorithms."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_definition = {PyModuleDef_HEAD_INIT, "_mpixrma",
                                               "The C half of mpixrma (see mpixrma/__init__.py).", -1,
                                               module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__mpixrma(void) {
    if (PyType_Ready(&CommType) < 0 || PyType_Ready(&RequestType) < 0) return NULL;
    PyObject *module = PyModule_Create(&module_definition);
    if (module == NULL) return NULL;
    mpix_error = PyErr_NewException("mpixrma.Error", PyExc_RuntimeError, NULL);
    Py_INCREF(&CommType);
    Py_INCREF(&RequestType);
    if (mpix_error == NULL || PyModule_AddObject(module, "Error", mpix_error) < 0 ||
        PyModule_AddObject(module, "Comm", (PyObject *)&CommType) < 0 ||
        PyModule_AddObject(module, "Request", (PyObject *)&RequestType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(mpix_error);
    return module;
}
